# install-common.sh — what install.sh and upgrade.sh (both in this folder of the bundle) share:
# their output lines, how they read an env file and the root's users, and how they make users,
# folders and secret files. Sourced, not run; the sourcing script sets R, the prefix of every path
# in the root (empty for the real root), before it sources this file.
# shellcheck shell=bash

# section <title>: a heading in the transcript.
section() { printf '\n== %s\n' "$1"; }
# report <what> <status> [detail]
report() { printf '   %-52s %s%s\n' "$1" "$2" "${3:+ ($3)}"; }

# env_value <file> <KEY>: a setting of an env file (one pair of quotes removed).
env_value() {
  local value
  value=$(sed -n "s/^$2=//p" "$1" | tail -n 1)
  value=${value#\"}
  value=${value%\"}
  printf '%s' "$value"
}

# id_in passwd|group <name>: the id of a user or group from the root's own /etc (the host's may
# differ with --root).
# shellcheck disable=SC2154 # R is set by the sourcing script
id_in() { awk -F: -v name="$2" '$1 == name { print $3; found = 1 } END { exit !found }' "$R/etc/$1"; }

# --- Users, folders and secret files inside the root -------------------------------------------
# Ids come from the root's own /etc/passwd and /etc/group (id_in above).
gid_of() { id_in group "$1"; }
user_exists() { id_in passwd "$1" >/dev/null; }
group_exists() { id_in group "$1" >/dev/null; }
in_group() { awk -F: -v name="$1" -v user="$2" '$1 == name { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == user) found = 1 } END { exit !found }' "$R/etc/group"; }
# useradd and friends work inside the root (--prefix) unless it is the real one.
prefix_args=()
[[ -z "$R" ]] || prefix_args=(--prefix "$R")

ensure_group() {
  if group_exists "$1"; then
    report "groep $1" ongewijzigd
  else
    groupadd "${prefix_args[@]}" --system "$1"
    report "groep $1" aangemaakt
  fi
}

# ensure_user <name> <home> [supplementary group]
ensure_user() {
  local name=$1 home=$2 extra=${3:-}
  if user_exists "$name"; then
    if [[ -n "$extra" ]] && ! in_group "$extra" "$name"; then
      usermod "${prefix_args[@]}" --append --groups "$extra" "$name"
      report "gebruiker $name" bijgewerkt "lid van $extra"
    else
      report "gebruiker $name" ongewijzigd
    fi
    return
  fi
  local args=(--system --user-group --no-create-home --home-dir "$home" --shell /usr/sbin/nologin)
  [[ -z "$extra" ]] || args+=(--groups "$extra")
  # useradd warns that /usr/sbin/nologin is missing when the root has no /usr.
  useradd "${prefix_args[@]}" "${args[@]}" "$name" 2> >(grep -v 'missing or non-executable shell' >&2)
  report "gebruiker $name" aangemaakt "$home"
}

# ensure_dir <path in root> <mode> <group>
ensure_dir() {
  local dir=$R$1 mode=$2 group=$3 gid
  gid=$(gid_of "$group")
  if [[ -d "$dir" && "$(stat -c '%a %u %g' "$dir")" == "${mode#0} 0 $gid" ]]; then return; fi
  mkdir -p "$dir"
  chown "0:$gid" "$dir"
  chmod "$mode" "$dir"
}

# keep_or_write <path in root> <mode> <group> <command...>: a file with secrets, written once from
# the command's output and never again (a second run keeps the secrets the services use).
keep_or_write() {
  local name=$1 target=$R$1 mode=$2 group=$3 gid
  shift 3
  if [[ -f "$target" ]]; then
    report "$name" ongewijzigd "bestaat al, behouden"
    return
  fi
  gid=$(gid_of "$group")
  mkdir -p "$(dirname "$target")"
  (umask 077 && "$@" >"$target.new")
  chown "0:$gid" "$target.new"
  chmod "$mode" "$target.new"
  mv -f "$target.new" "$target"
  report "$name" geschreven "nieuwe geheimen"
}

# secret_hex <bytes>: openssl's random generator, as hex.
secret_hex() { openssl rand -hex "$1"; }

# ensure_agent_helper_users, ensure_agent_helper_secrets: the users of the units beside the agent (the screenshot browser, the git
# runner) and the secrets the agent shares with each (LoadCredential= in both units). install.sh
# agent makes them; upgrade.sh too, for an agent installed before a unit existed (its new agent
# unit would not start without them).
ensure_agent_helper_users() {
  ensure_user devplein-browser /nonexistent
  ensure_user devplein-git /nonexistent
}
ensure_agent_helper_secrets() {
  ensure_dir /etc/devplein/credentials 0700 root
  keep_or_write /etc/devplein/credentials/browser-secret 0600 root secret_hex 32
  keep_or_write /etc/devplein/credentials/git-runner-secret 0600 root secret_hex 32
}

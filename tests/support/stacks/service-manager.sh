#!/usr/bin/env bash
# A stand-in for systemd, for install.sh upgrade in tests: the test machines run no systemd (no
# /run/systemd/system). install.sh calls it through DEVPLEIN_SERVICE_MANAGER as
#
#   service-manager.sh start|stop|logs <unit>
#
# and it does what systemd would with the unit file installed in the throwaway root
# DEVPLEIN_STANDIN_ROOT: ExecStart as User/Group, with Environment= and then EnvironmentFile=
# (the file's settings win, as in systemd), in WorkingDirectory, StateDirectory= made for the
# user, SupplementaryGroups= and LoadCredential= (in <root>/run/credentials/<unit>, %d), drop-ins
# in <unit>.d/*.conf, AmbientCapabilities= with DEVPLEIN_STANDIN_CAPS=1; `start` returns once ExecStartPost (the unit's readiness check) succeeds and fails when
# the process exits first (Type=exec); `stop` sends KillSignal (SIGTERM) and SIGKILL after
# TimeoutStopSec. Absolute paths under /opt/devplein, /etc/devplein and /var/lib are taken inside
# the root. Output goes to <root>/var/log/standin/<unit>.log (systemd: the journal).
# A unit's process is known by its pid AND its start time (<unit>.pid, <unit>.start): systemd
# signals a cgroup, never a bare pid, and a pid alone may be another process's by the time of
# `stop` (pid_max is 32768 on the test machines; under load the pids went round in about 8 minutes).
set -euo pipefail
R=${DEVPLEIN_STANDIN_ROOT:?DEVPLEIN_STANDIN_ROOT names the root}
action=${1:?start, stop or logs}
unit=${2:?a unit}
unit_file=$R/etc/systemd/system/$unit
state=$R/run/standin
log=$R/var/log/standin/$unit.log
pid_file=$state/$unit.pid
start_file=$state/$unit.start
mkdir -p "$state" "$(dirname "$log")"

# setting <Key>: every value of Key= in the unit, then in its drop-ins (<unit>.d/*.conf, in
# name order, as systemd reads them), one a line.
setting() {
  local file
  sed -n "s/^$1=//p" "$unit_file"
  for file in "$unit_file.d"/*.conf; do
    [[ -f "$file" ]] && sed -n "s/^$1=//p" "$file"
  done
  return 0
}
in_root() {
  case "$1" in
    /opt/devplein/* | /etc/devplein/* | /var/lib/* | /run/credentials/*) printf '%s%s' "$R" "$1" ;;
    *) printf '%s' "$1" ;;
  esac
}
id_in() { awk -F: -v name="$2" '$1 == name { print $3 }' "$R/etc/$1"; }
# alive <pid>: running, not a zombie (an orphaned service is not reaped on every machine).
alive() {
  local state
  state=$(sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$1/stat" 2>/dev/null) && [[ -n "$state" && "$state" != Z ]]
}
# started_at <pid>: its start time (field 22 of /proc/<pid>/stat, clock ticks since boot; the
# 20th after the ") " that ends the name, whatever the name holds).
started_at() {
  local line
  line=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  # shellcheck disable=SC2086 # split into the stat fields on purpose
  set -- ${line##*) }
  printf '%s' "${20}"
}
# same_process <pid> <start>: that pid is still the process that started then.
same_process() { alive "$1" && [[ -n "$2" && "$(started_at "$1")" == "$2" ]]; }
# running_pid: the unit's process, if it still runs (not another process that got its pid).
running_pid() {
  local pid start
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  start=$(cat "$start_file" 2>/dev/null) || return 1
  same_process "$pid" "$start" && printf '%s' "$pid"
}
# gone_within <pid> <start> <seconds>
gone_within() {
  local deadline=$((SECONDS + $3))
  while same_process "$1" "$2"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

case "$action" in
  logs) tail -n 200 "$log" 2>/dev/null || true ;;
  stop)
    if pid=$(running_pid); then
      start=$(cat "$start_file")
      timeout_s=$(setting TimeoutStopSec | tail -n 1)
      kill -TERM "$pid"
      if ! gone_within "$pid" "$start" "${timeout_s:-90}"; then
        ! same_process "$pid" "$start" || kill -KILL "$pid" 2>/dev/null || true
        gone_within "$pid" "$start" 10
      fi
    fi
    rm -f "$pid_file" "$start_file"
    ;;
  start)
    [[ -f "$unit_file" ]] || { echo "$unit: geen unitbestand $unit_file" >&2; exit 5; }
    if running_pid >/dev/null; then exit 0; fi
    user=$(setting User | tail -n 1)
    uid=$(id_in passwd "$user")
    gid=$(id_in group "$(setting Group | tail -n 1)")
    # LoadCredential=<name>:<file>: a copy only the unit's user reads, in $CREDENTIALS_DIRECTORY
    # (systemd: /run/credentials/<unit>, here inside the root), which %d names in the unit.
    credentials=$R/run/credentials/$unit
    rm -rf "$credentials"
    while IFS=: read -r name file; do
      install -d -m 0500 -o "$uid" -g "$gid" "$credentials"
      install -m 0400 -o "$uid" -g "$gid" "$(in_root "$file")" "$credentials/$name"
    done < <(setting LoadCredential)
    # As systemd does for a unit with User=: PATH, and HOME, USER, LOGNAME of that user.
    home=$(awk -F: -v name="$user" '$1 == name { print $6 }' "$R/etc/passwd")
    environment=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "HOME=$home" "USER=$user" "LOGNAME=$user")
    [[ ! -d "$credentials" ]] || environment+=("CREDENTIALS_DIRECTORY=$credentials")
    while read -ra pairs; do environment+=("${pairs[@]//%d/$credentials}"); done < <(setting Environment)
    while IFS= read -r file; do
      while IFS= read -r line || [[ -n "$line" ]]; do
        [[ "$line" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
        value=${BASH_REMATCH[2]}
        value=${value#\"}
        value=${value%\"}
        environment+=("${BASH_REMATCH[1]}=$value")
      done <"$(in_root "$file")"
    done < <(setting EnvironmentFile)
    while IFS= read -r dir; do
      install -d -m "$(setting StateDirectoryMode | tail -n 1 | grep . || echo 0755)" -o "$uid" -g "$gid" "$R/var/lib/$dir"
    done < <(setting StateDirectory)
    read -ra command <<<"$(setting ExecStart | tail -n 1)"
    command[0]=$(in_root "${command[0]}")
    cd "$(in_root "$(setting WorkingDirectory | tail -n 1)")"
    printf -- '-- %s gestart %s\n' "$unit" "$(date -u +%FT%TZ)" >>"$log"
    # SupplementaryGroups= (e.g. the agent's docker), by their ids in the root's /etc/group.
    groups=()
    for group in $(setting SupplementaryGroups); do groups+=("$(id_in group "$group")"); done
    if [[ ${#groups[@]} -gt 0 ]]; then group_option=("--groups=$(IFS=,; echo "${groups[*]}")"); else group_option=(--clear-groups); fi
    # AmbientCapabilities= only when asked (DEVPLEIN_STANDIN_CAPS=1: a network namespace of the
    # test's own); on a shared test machine the agent must not change the host's network.
    caps_option=()
    if [[ "${DEVPLEIN_STANDIN_CAPS:-}" == 1 ]]; then
      caps=$(setting AmbientCapabilities | tr ' ' '\n' | { grep . || true; } | tr '[:upper:]' '[:lower:]' | sed 's/^cap_//; s/^/+/' | paste -sd, -)
      [[ -z "$caps" ]] || caps_option=("--inh-caps=$caps" "--ambient-caps=$caps")
    fi
    setpriv --reuid="$uid" --regid="$gid" "${group_option[@]}" "${caps_option[@]}" -- env -i "${environment[@]}" "${command[@]}" </dev/null >>"$log" 2>&1 &
    main=$!
    echo "$main" >"$pid_file"
    # Empty when it already ended (and was reaped): then it is not running.
    started_at "$main" >"$start_file" || true
    post=$(setting ExecStartPost | tail -n 1)
    [[ -n "$post" ]] || exit 0
    # /bin/bash -c '<script>' with systemd's escapes ($$, %%) undone.
    script=${post#*\'}
    script=${script%\'*}
    script=${script//\$\$/\$}
    script=${script//%%/%}
    env -i "${environment[@]}" bash -c "$script" </dev/null >>"$log" 2>&1 &
    readiness=$!
    # Whichever ends first: the readiness check (ready or not), or the service (it failed).
    finished=""
    status=0
    wait -n -p finished "$main" "$readiness" || status=$?
    if [[ "$finished" == "$main" ]]; then
      kill "$readiness" 2>/dev/null || true
      echo "$unit: het proces stopte tijdens het starten (zie $log)" >&2
      exit 1
    fi
    [[ "$status" -eq 0 ]] || { echo "$unit: niet gereed (zie $log)" >&2; exit 1; }
    ;;
  *) echo "gebruik: $0 start|stop|logs <unit>" >&2; exit 2 ;;
esac

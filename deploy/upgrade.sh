#!/usr/bin/env bash
# upgrade.sh — `./install.sh upgrade`: moves an installed devplein to the version of this (newer)
# unpacked bundle, and back when the new version does not come up healthy.
#
#   sudo ./install.sh upgrade [--root DIR]
#
# The roles come from what is installed (/etc/devplein/agent.env, control-plane.env); with both
# on one host the agent goes first (an agent is always at least as new as its control plane).
#   agent:          stop, point /opt/devplein/current at the new release, start, /healthz.
#   control plane:  stop, pg_dump into /var/backups/devplein/<old>-before-<new>-<UTC>.dump,
#                   switch, `devplein migrate` as the service user, start, /healthz (60 s).
# When migrate, start or health fails: stop, switch back, restore the dump into a clean schema,
# start the old version, check its health, exit 1 naming the dump and the log of the attempt.
# The same version again changes nothing; the last 3 releases are kept (always the old one),
# and after a good upgrade the last DEVPLEIN_KEEP_DUMPS (5) pre-upgrade dumps.
# The env files stay the sysadmin's: before anything stops, the settings the new release's
# example sets and the installed file does not (and the other way round) are listed.
#
# Services: systemctl when systemd runs (and not --root); otherwise the command in
# DEVPLEIN_SERVICE_MANAGER, called as `<command> start|stop <unit>` (and `logs <unit>` for the
# log of a failed attempt) — a chroot's own manager, or the test's stand-in for systemd.
set -euo pipefail

usage() {
  echo 'Gebruik: install.sh upgrade [--root DIR]   (vanuit de uitgepakte, nieuwere bundel)'
}

fail() {
  echo "install.sh upgrade: $*" >&2
  exit 1
}

root=/
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; root=$2; shift ;;
    --root=*) root=${1#--root=} ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[[ $EUID -eq 0 ]] || fail "voer uit als root (sudo ./install.sh upgrade)"

# This script is deploy/upgrade.sh of the bundle.
bundle=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
[[ -x "$bundle/bin/devplein" && -f "$bundle/VERSION" ]] || fail "geen releasebundel rond $bundle (bin/devplein en VERSION ontbreken)"
new=$(tr -d '[:space:]' <"$bundle/VERSION")
[[ "$new" =~ ^[0-9A-Za-z.+-]+$ ]] || fail "ongeldige VERSION in $bundle: '$new'"
[[ -d "$root" ]] || fail "--root $root is geen map"
root=$(cd "$root" && pwd -P)
R=${root%/}

# section, report, env_value and id_in, shared with install.sh.
# shellcheck source-path=SCRIPTDIR source=install-common.sh
source "$bundle/deploy/install-common.sh"
# The dump, the migrations and the restore (with install.sh's database steps).
# shellcheck source-path=SCRIPTDIR source=install-database.sh
source "$bundle/deploy/install-database.sh"

# env_keys <file>: the names its KEY=value lines set, sorted.
env_keys() { sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*$/\1/p' "$1" | sort -u; }

# --- What is installed -----------------------------------------------------------------------
roles=()
[[ -f "$R/etc/devplein/agent.env" ]] && roles+=(agent)
[[ -f "$R/etc/devplein/control-plane.env" ]] && roles+=(control-plane)
[[ ${#roles[@]} -gt 0 ]] || fail "in ${R:-/} is geen devplein geïnstalleerd (/etc/devplein/control-plane.env en agent.env ontbreken): eerst ./install.sh control-plane of agent"
current_link=$(readlink "$R/opt/devplein/current" 2>/dev/null || true)
[[ "$current_link" =~ ^releases/([0-9A-Za-z.+-]+)$ && -d "$R/opt/devplein/$current_link" ]] ||
  fail "/opt/devplein/current wijst niet naar een versie in /opt/devplein/releases (nu: '${current_link:-ontbreekt}')"
old=${BASH_REMATCH[1]}

echo "devplein upgraden: $old → $new, rol(len) ${roles[*]}, in ${R:-/} (bundel $bundle)"
if [[ "$old" == "$new" ]]; then
  report "devplein $new" ongewijzigd "deze versie draait al; niets gedaan"
  exit 0
fi
if [[ "$(printf '%s\n%s\n' "$old" "$new" | sort -V | tail -n 1)" == "$old" ]]; then
  fail "versie $new is ouder dan de geïnstalleerde $old; terug naar een oudere versie gaat met de hand (docs/operations.md, Upgrade)"
fi

# --- Services --------------------------------------------------------------------------------
if [[ -z "$R" && -d /run/systemd/system ]]; then
  manager=systemd
elif [[ -n "${DEVPLEIN_SERVICE_MANAGER:-}" ]]; then
  [[ -x "$DEVPLEIN_SERVICE_MANAGER" ]] || fail "DEVPLEIN_SERVICE_MANAGER is geen uitvoerbaar bestand: $DEVPLEIN_SERVICE_MANAGER"
  manager=$DEVPLEIN_SERVICE_MANAGER
else
  fail "systemd draait hier niet$([[ -n "$R" ]] && echo " (of --root)"): geef in DEVPLEIN_SERVICE_MANAGER een opdracht die 'start|stop <unit>' doet"
fi

# service start|stop|logs <unit>: the one place that starts and stops units.
service() {
  if [[ "$manager" == systemd ]]; then
    case "$1" in
      logs) journalctl -u "$2" --since "@$started_at" --no-pager ;;
      *) systemctl "$1" "$2" ;;
    esac
  else
    "$manager" "$1" "$2"
  fi
}

# units_of <role>: its units in start order, those the release in use (/opt/devplein/current)
# ships: a release from before the git runner has no devplein-git.service, so going back to it
# stops that unit and starts none (its unit file stays, unused: the old agent unit does not want it).
units_of() {
  local unit units=() shipped=()
  case "$1" in
    control-plane) units=(devplein-soketi.service devplein-control-plane.service) ;;
    agent) units=(devplein-browser.service devplein-git.service devplein-agent.service) ;;
  esac
  for unit in "${units[@]}"; do
    [[ ! -f "$R/opt/devplein/current/deploy/systemd/$unit" ]] || shipped+=("$unit")
  done
  echo "${shipped[*]}"
}

# start_role / stop_role <role>: its units in start order, or in reverse.
start_role() {
  local unit
  for unit in $(units_of "$1"); do
    if service start "$unit"; then report "$unit" gestart; else report "$unit" "start mislukt"; return 1; fi
  done
}
stop_role() {
  local units unit i
  read -ra units <<<"$(units_of "$1")"
  for ((i = ${#units[@]} - 1; i >= 0; i--)); do
    unit=${units[i]}
    if service stop "$unit"; then report "$unit" gestopt; else report "$unit" "stoppen mislukt"; return 1; fi
  done
}

# health_url <role>: its /healthz, from the env file in place.
health_url() {
  local env host port listen
  case "$1" in
    control-plane)
      env=$R/etc/devplein/control-plane.env
      host=$(env_value "$env" HOST)
      port=$(env_value "$env" PORT)
      [[ -n "$host" && "$host" != 0.0.0.0 ]] || host=127.0.0.1
      echo "http://$host:${port:-8080}/healthz"
      ;;
    agent)
      # Not set: the agent's default; set but empty: its health listener is off (no URL).
      grep -q '^AGENT_METRICS_LISTEN=' "$R/etc/devplein/agent.env" || { echo http://127.0.0.1:9465/healthz; return; }
      listen=$(env_value "$R/etc/devplein/agent.env" AGENT_METRICS_LISTEN)
      [[ -z "$listen" ]] || echo "http://${listen/#0.0.0.0:/127.0.0.1:}/healthz"
      ;;
  esac
}

# healthy <role>: /healthz answers 200 with status ok (or degraded: the control plane with an
# unreachable agent still serves) within DEVPLEIN_HEALTH_TIMEOUT seconds (60).
healthy() {
  local url body deadline
  url=$(health_url "$1")
  if [[ -z "$url" ]]; then
    report "/healthz van $1" overgeslagen "AGENT_METRICS_LISTEN is leeg; alleen de start telt"
    return 0
  fi
  deadline=$((SECONDS + ${DEVPLEIN_HEALTH_TIMEOUT:-60}))
  while ((SECONDS < deadline)); do
    if body=$(curl -fsS --max-time 2 "$url" 2>/dev/null) && [[ "$body" =~ \"status\":\"(ok|degraded)\" ]]; then
      report "$url" gezond "$body"
      return 0
    fi
    sleep 1
  done
  report "$url" "niet gezond" "geen status ok binnen ${DEVPLEIN_HEALTH_TIMEOUT:-60} s"
  return 1
}

# switch_to <version>: /opt/devplein/current → releases/<version>, in one rename, and the
# release's units in /etc/systemd/system.
switch_to() {
  local role unit
  ln -sfn "releases/$1" "$R/opt/devplein/current.new"
  mv -T "$R/opt/devplein/current.new" "$R/opt/devplein/current"
  report /opt/devplein/current "→ releases/$1"
  for role in "${roles[@]}"; do
    for unit in $(units_of "$role"); do
      if ! cmp -s "$R/opt/devplein/releases/$1/deploy/systemd/$unit" "$R/etc/systemd/system/$unit"; then
        install -m 0644 -o 0 -g 0 "$R/opt/devplein/releases/$1/deploy/systemd/$unit" "$R/etc/systemd/system/$unit"
        report "/etc/systemd/system/$unit" "van $1"
      fi
    done
  done
  [[ "$manager" != systemd ]] || systemctl daemon-reload
}

# --- The attempt's log and the dump -------------------------------------------------------------
stamp=$(date -u +%Y%m%dT%H%M%SZ)
started_at=$(date +%s)
install -d -m 0750 "$R/var/log/devplein"
log=/var/log/devplein/upgrade-$old-to-$new-$stamp.log
exec > >(tee -a "$R$log") 2>&1
backup_dir=/var/backups/devplein
dump=""
database_url=""
if [[ " ${roles[*]} " == *" control-plane "* ]]; then
  for program in pg_dump pg_restore psql; do
    command -v "$program" >/dev/null || fail "$program ontbreekt (apt-get install postgresql-client)"
  done
  database_url=$(env_value "$R/etc/devplein/control-plane.env" DATABASE_URL)
  [[ "$database_url" =~ ^postgres(ql)?:// ]] || fail "DATABASE_URL in /etc/devplein/control-plane.env is geen postgres://-adres"
fi

# append_logs <version>: the units' logs since the attempt began, into the attempt's log.
append_logs() {
  local role unit
  for role in "${touched[@]}"; do
    for unit in $(units_of "$role"); do
      { printf '\n--- %s (%s)\n' "$unit" "$1"; service logs "$unit" 2>&1 || true; } >>"$R$log"
    done
  done
}

touched=()
roll_back() {
  local reason=$1 role i ok=yes
  section "Terug naar $old: $reason"
  for ((i = ${#touched[@]} - 1; i >= 0; i--)); do stop_role "${touched[i]}" || true; done
  append_logs "$new"
  switch_to "$old"
  if [[ -n "$dump" ]]; then
    if restore_database "$database_url" "$R$dump"; then report "database" teruggezet "uit $dump"; else report "database" "terugzetten MISLUKT" "$dump"; ok=no; fi
  fi
  for role in "${touched[@]}"; do
    if ! start_role "$role" || ! healthy "$role"; then ok=no; fi
  done
  echo
  if [[ "$ok" == yes ]]; then
    echo "UPGRADE MISLUKT: $reason. Versie $old draait weer en is gezond."
  else
    echo "UPGRADE MISLUKT: $reason. LET OP: ook versie $old draait NIET goed; zie het log hieronder."
  fi
  [[ -z "$dump" ]] || echo "De database is teruggezet uit de dump van vóór de upgrade: $dump"
  echo "Log van deze poging (met de uitvoer van $new): $log"
  echo "De nieuwe versie staat nog in /opt/devplein/releases/$new."
  [[ "$ok" == yes ]] || { append_logs "$old"; exit 2; }
  exit 1
}

# --- 1. The new release next to the old one ----------------------------------------------------
section "Nieuwe versie in /opt/devplein/releases/$new"
release_dir=$R/opt/devplein/releases/$new
# Left by an earlier attempt that failed: copied again, it may have been rebuilt since.
[[ ! -d "$release_dir" ]] || rm -rf "$release_dir"
partial=$R/opt/devplein/releases/.$new.partial
rm -rf "$partial"
cp -R --preserve=mode,timestamps,links "$bundle/." "$partial"
chown -R 0:0 "$partial"
chmod -R go-w "$partial"
mv "$partial" "$release_dir"
report "/opt/devplein/releases/$new" gekopieerd

# --- 2. Settings: what the new version's example sets that is not in the installed env file ---
# Nothing is written: a setting missing from the installed file takes the new version's default
# (it starts without it); a setting the example no longer has may no longer be read.
section "Instellingen van $new"
for role in "${roles[@]}"; do
  installed=/etc/devplein/$role.env
  example=/opt/devplein/releases/$new/deploy/systemd/devplein-$role.env
  if [[ ! -f "$R$example" ]]; then
    report "$installed" "niet vergeleken" "$example ontbreekt"
    continue
  fi
  added=$(comm -13 <(env_keys "$R$installed") <(env_keys "$R$example") | paste -sd ' ' -)
  dropped=$(comm -23 <(env_keys "$R$installed") <(env_keys "$R$example") | paste -sd ' ' -)
  if [[ -z "$added$dropped" ]]; then
    report "$installed" ongewijzigd "dezelfde instellingen als het voorbeeld van $new"
    continue
  fi
  [[ -z "$added" ]] || report "$installed" "nieuw in $new" "$added: niet gezet, dus de standaardwaarde; uitleg in $example"
  [[ -z "$dropped" ]] || report "$installed" "niet in het voorbeeld van $new" "$dropped: mogelijk niet meer gebruikt; zie CHANGELOG.md"
done

# --- 3. The agent first ----------------------------------------------------------------------
if [[ " ${roles[*]} " == *" agent "* ]]; then
  # The users and shared secrets of the units beside the agent (install-common.sh): an agent
  # installed before the git runner has neither devplein-git nor git-runner-secret, and the new
  # agent unit (SupplementaryGroups=, LoadCredential=) does not start without them. Made before
  # anything stops; kept when they exist.
  section "Gebruikers en geheimen naast de agent"
  command -v openssl >/dev/null || fail "openssl ontbreekt (apt-get install openssl)"
  ensure_agent_helper_users
  ensure_agent_helper_secrets
  section "Agent: $old → $new"
  touched+=(agent)
  stop_role agent || roll_back "het stoppen van de agent mislukte"
  switch_to "$new"
  start_role agent || roll_back "de agent $new startte niet"
  healthy agent || roll_back "de agent $new werd niet gezond"
fi

# --- 4. The control plane: dump, migrate, start ------------------------------------------------
if [[ " ${roles[*]} " == *" control-plane "* ]]; then
  section "Control plane: $old → $new"
  touched+=(control-plane)
  stop_role control-plane || roll_back "het stoppen van de control plane mislukte"
  install -d -m 0700 "$R$backup_dir"
  target=$backup_dir/$old-before-$new-$stamp.dump
  if dump_database "$database_url" "$R$target.partial"; then
    mv "$R$target.partial" "$R$target"
    dump=$target
    report "$dump" geschreven "$(du -h "$R$dump" | cut -f1)"
  else
    rm -f "$R$target.partial"
    roll_back "de databasedump (pg_dump) mislukte; de database is niet aangeraakt"
  fi
  [[ "$(readlink "$R/opt/devplein/current")" == "releases/$new" ]] || switch_to "$new"
  uid=$(id_in passwd devplein) || roll_back "gebruiker devplein ontbreekt"
  gid=$(id_in group devplein) || roll_back "groep devplein ontbreekt"
  # As the service's user with the service's env file, from the new release.
  if migrated=$(cd "$R/opt/devplein/current" && migrate_with_env_file "$uid" "$gid" "$R/etc/devplein/control-plane.env" "$R/opt/devplein/current/bin/devplein" 2>&1); then
    if [[ "$migrated" == *"up to date"* ]]; then report "migraties" ongewijzigd "$migrated"; else report "migraties" uitgevoerd "$migrated"; fi
  else
    printf '%s\n' "$migrated" | sed 's/^/     /'
    roll_back "de migraties van $new mislukten"
  fi
  start_role control-plane || roll_back "de control plane $new startte niet"
  healthy control-plane || roll_back "de control plane $new werd niet gezond"
fi

# --- 5. Older releases and dumps ------------------------------------------------------------------
section "Oude versies (de laatste 3 blijven, $old altijd)"
mapfile -t others < <(find "$R/opt/devplein/releases" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | grep -vxF -e "$new" -e "$old" | sort -rV)
for ((i = 1; i < ${#others[@]}; i++)); do
  rm -rf "$R/opt/devplein/releases/${others[i]}"
  report "/opt/devplein/releases/${others[i]}" verwijderd
done
keep_dumps=${DEVPLEIN_KEEP_DUMPS:-5}
[[ "$keep_dumps" =~ ^[1-9][0-9]*$ ]] || fail "DEVPLEIN_KEEP_DUMPS moet een getal vanaf 1 zijn (nu: '$keep_dumps')"
if [[ -n "$database_url" && -d "$R$backup_dir" ]]; then
  section "Dumps van vóór een upgrade (de laatste $keep_dumps blijven)"
  # Newest first by the time each was written (the names sort by version, not by time).
  mapfile -t dumps < <(find "$R$backup_dir" -mindepth 1 -maxdepth 1 -type f -name '*-before-*.dump' -printf '%T@ %f\n' | sort -rn | cut -d' ' -f2-)
  for ((i = keep_dumps; i < ${#dumps[@]}; i++)); do
    rm -f "$R$backup_dir/${dumps[i]}"
    report "$backup_dir/${dumps[i]}" verwijderd
  done
  ((${#dumps[@]} > keep_dumps)) || report "$backup_dir" ongewijzigd "${#dumps[@]} dump(s)"
fi

echo
echo "devplein $new draait (was $old). Dump van vóór de upgrade: ${dump:-geen (geen control plane)}; log: $log"

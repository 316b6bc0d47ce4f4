#!/usr/bin/env bash
# install.sh — installs one server role of devplein from an unpacked release bundle (Debian 12 or 13):
#
#   sudo ./install.sh control-plane   the control plane + soketi (PostgreSQL, Caddy)
#   sudo ./install.sh agent           the host agent + its screenshot browser and git runner
#                                     (Docker, Caddy, MariaDB, Chromium, git, WireGuard)
#   sudo ./install.sh upgrade         from a newer bundle: the installed roles to its version,
#                                     back to the old one when it fails (deploy/upgrade.sh); an
#                                     installed release does this itself, checked by its own code:
#                                     devplein upgrade <tarball> (deploy/verified-upgrade.sh)
#
# The bundle must be the one the school's release signer signed: the tarball it was unpacked from
# (devplein-<version>.tar.gz beside its folder, with .sha256 and .sig) is checked against --signer
# or /etc/devplein/release-signers, and the unpacked tree against the tarball (release-trust.sh).
#
# Options:
#   --signer 'NAME TYPE KEY'  the school's release signer (its name and the public key it
#                         publishes, got out of band), recorded in /etc/devplein/release-signers
#                         at the first install; later runs use that file
#   --unsigned            install a bundle whose signature is not checked (tests, a school's own
#                         unsigned build); said loudly
#   --root DIR            install into DIR instead of / (a chroot or a test folder): users with
#                         useradd --prefix, files under DIR; nothing is started
#   --no-start            write everything but start nothing
#   --packages=MODE       install (default on /), simulate (apt-get -s; default with --root) or skip
#   --agent-host NAME     host name in the agent certificate (besides localhost), when the control
#                         plane reaches the agent on another machine
#   --join -              (agent) join the control plane with the one-time string of `devplein agent
#                         invite` ('<url>#<token>.<ca sha256>'), read from standard input (asked
#                         for, not echoed, on a terminal) so it is on no command line: the key is
#                         made here, only a CSR is sent; the certificate and the link CA come back
#                         (the CA checked against the sha256 in the string). No local CA is made
#                         then. --join STRING still works, with a warning (the string is then
#                         readable in /proc by every local user while the install runs).
#   --domain NAME         the web app's name (default devplein.school.nl)
#   --db-admin-host NAME  phpMyAdmin's own host name, never the web app's (default: phpmyadmin.
#                         next to --domain, so phpmyadmin.school.nl for devplein.school.nl)
#   --site-domain NAME    the students' sites are {project}.NAME (default dev.school.nl)
#   --vpn-host NAME       what VPN clients dial (default vpn.school.nl)
#   --email ADDRESS       Let's Encrypt contact in the Caddyfile (default beheer@school.nl)
#   The five names go into files written by this run only (env files and the Caddyfile that exist
#   are kept).
#
# Safe to run again: what exists is kept (secrets, env files, certificates, users); every step
# says "ongewijzigd" when it had nothing to do. It works from the bundle's root and from its
# deploy/ folder. Installing a bundle of another version than the one installed leaves
# /opt/devplein/current alone: that is `install.sh upgrade`. Files written are listed in docs/operations.md,
# "Install with install.sh".
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

usage() {
  cat <<'USAGE'
Gebruik: install.sh control-plane|agent --signer '<naam> <sleuteltype> <sleutel>' [--root DIR] [--no-start]
         [--packages=install|simulate|skip] [--agent-host NAAM] [--domain NAAM] [--site-domain NAAM]
         [--db-admin-host NAAM] [--vpn-host NAAM] [--email ADRES] [--unsigned]
         install.sh agent --join - [opties als hierboven]   (vraagt de koppelcode van devplein agent invite)
         install.sh upgrade [--root DIR] [--signer …] [--unsigned]     (vanuit de nieuwere bundel)
         Een geïnstalleerde release upgradet met: devplein upgrade devplein-<versie>.tar.gz
USAGE
}

fail() {
  echo "install.sh: $*" >&2
  exit 1
}

role=""
signer=""
unsigned=no
# An option of an install that `install.sh upgrade` does not take.
install_option=""
root="/"
start=yes
packages=""
agent_host=""
join=""
# The example names of deploy/ and what replaces them.
domain=devplein.school.nl
site_domain=dev.school.nl
vpn_host=vpn.school.nl
email=beheer@school.nl
# phpMyAdmin's host name; empty: next to the domain (set after the options).
db_admin_host=""
while [[ $# -gt 0 ]]; do
  [[ "$1" =~ ^(--(root|signer|unsigned)(=.*)?|control-plane|agent|upgrade)$ ]] || install_option=$1
  case "$1" in
    # `install.sh upgrade …` is deploy/upgrade.sh of the same bundle, once its signature is checked.
    control-plane | agent | upgrade) [[ -z "$role" ]] || { usage >&2; exit 2; }; role=$1 ;;
    --root) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; root=$2; shift ;;
    --root=*) root=${1#--root=} ;;
    --signer) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; signer=$2; shift ;;
    --signer=*) signer=${1#--signer=} ;;
    --unsigned) unsigned=yes ;;
    --no-start) start=no ;;
    --packages=install | --packages=simulate | --packages=skip) packages=${1#--packages=} ;;
    --agent-host) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; agent_host=$2; shift ;;
    --agent-host=*) agent_host=${1#--agent-host=} ;;
    --join) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; join=$2; shift ;;
    --join=*) join=${1#--join=} ;;
    --domain | --site-domain | --db-admin-host | --vpn-host | --email)
      [[ $# -ge 2 ]] || { usage >&2; exit 2; }
      set -- "$1=$2" "${@:3}"
      continue ;;
    --domain=*) domain=${1#--domain=} ;;
    --site-domain=*) site_domain=${1#--site-domain=} ;;
    --db-admin-host=*) db_admin_host=${1#--db-admin-host=} ;;
    --vpn-host=*) vpn_host=${1#--vpn-host=} ;;
    --email=*) email=${1#--email=} ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[[ -n "$role" ]] || { usage >&2; exit 2; }
[[ "$role" != upgrade || -z "$install_option" ]] || { echo "install.sh upgrade: $install_option is een optie van een installatie, niet van een upgrade" >&2; usage >&2; exit 2; }
# --join -: the one-time string from standard input, so it is on no command line (/proc/<pid>/cmdline
# is readable by every local user for as long as the install runs).
if [[ "$join" == - ]]; then
  if [[ -t 0 ]]; then
    printf 'Koppelopdracht (van devplein agent invite; wordt niet getoond): ' >&2
    IFS= read -rs join || true
    printf '\n' >&2
  else
    IFS= read -r join || true
  fi
  join=${join//[[:space:]]/}
  [[ -n "$join" ]] || fail "--join -: geen koppelopdracht gelezen"
elif [[ -n "$join" ]]; then
  echo "install.sh: let op: met --join '…' staat de koppelopdracht op de opdrachtregel, leesbaar voor elke gebruiker van deze machine zolang de installatie loopt; geef liever --join - en plak hem als erom gevraagd wordt." >&2
fi
if [[ -n "$join" ]]; then
  [[ "$role" == agent ]] || fail "--join is for the agent role"
  # <control plane url>#<token: 256 bits base64url>.<sha256 of the link CA, hex>
  join_pattern='^(https?://[^#/[:space:]]+)/?#([A-Za-z0-9_-]{43})\.([0-9a-f]{64})$'
  [[ "$join" =~ $join_pattern ]] || fail "--join: not a join string of devplein agent invite: $join"
  join_url=${BASH_REMATCH[1]}; join_token=${BASH_REMATCH[2]}; join_ca_sha256=${BASH_REMATCH[3]}
  # Plain HTTP would hand the token to anyone on the way: only on this machine, or when a test says so.
  if [[ "$join_url" == http://* && ! "$join_url" =~ ^http://(localhost|127\.0\.0\.1)(:[0-9]+)?$ && "${DEVPLEIN_JOIN_ALLOW_HTTP:-}" != 1 ]]; then
    fail "--join: the control plane must be reached over https (got $join_url)"
  fi
fi
# phpMyAdmin next to the web app: devplein.school.nl → phpmyadmin.school.nl (a name without a dot: phpmyadmin.NAME).
if [[ -z "$db_admin_host" ]]; then
  if [[ "$domain" == *.* ]]; then db_admin_host=phpmyadmin.${domain#*.}; else db_admin_host=phpmyadmin.$domain; fi
fi
for name in "$domain" "$site_domain" "$db_admin_host" "$vpn_host" ${agent_host:+"$agent_host"}; do
  [[ "$name" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] || fail "not a host name: $name"
done
# Its pages show students' table content: on the web app's origin a script in them would run with devplein's session.
[[ "${db_admin_host,,}" != "${domain,,}" ]] || fail "--db-admin-host must differ from --domain: phpMyAdmin gets a host name of its own"
[[ "$email" =~ ^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$ ]] || fail "not an e-mail address: $email"
[[ $EUID -eq 0 ]] || fail "run as root (sudo ./install.sh $role)"

# The bundle: this script's folder, or its parent when the script is in deploy/.
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
if [[ -x "$here/bin/devplein" && -f "$here/VERSION" ]]; then
  bundle=$here
elif [[ -x "$here/../bin/devplein" && -f "$here/../VERSION" ]]; then
  bundle=$(cd "$here/.." && pwd)
else
  fail "no release bundle around $here (bin/devplein and VERSION not found)"
fi
version=$(tr -d '[:space:]' <"$bundle/VERSION")
[[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || fail "invalid VERSION in $bundle: '$version'"

[[ -d "$root" ]] || fail "--root $root is not a folder"
root=$(cd "$root" && pwd -P)
# R prefixes every path written: empty for the real root.
R=${root%/}
on_real_root() { [[ -z "$R" ]]; }

# The Debian release of the target (12 bookworm, 13 trixie: the ones devplein is tested on).
debian_release() { sed -n 's/^VERSION_ID="\{0,1\}\([0-9]*\).*/\1/p' "$R/etc/os-release" 2>/dev/null; }

# The PHP of the target's PHP-FPM (phpMyAdmin, deploy/phpmyadmin): the installed one, or the one
# its Debian release ships (12: 8.2, 13: 8.4).
php_version() {
  local installed
  installed=$(find "$R/etc/php" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort -V | tail -n 1)
  if [[ -n "$installed" ]]; then echo "$installed"; return; fi
  case "$(debian_release)" in
    13) echo 8.4 ;;
    *) echo 8.2 ;;
  esac
}
if [[ -z "$packages" ]]; then
  if on_real_root; then packages=install; else packages=simulate; fi
fi
[[ "$packages" != install ]] || on_real_root || fail "--packages=install only on / (use simulate or skip with --root)"

# --- Output ---------------------------------------------------------------------------------
# section, report, env_value and id_in, shared with upgrade.sh.
# shellcheck source-path=SCRIPTDIR source=install-common.sh
source "$bundle/deploy/install-common.sh"
# The release signers and the check of a tarball against them, shared with the installed release's
# devplein upgrade and devplein release-signers.
trust_program=install.sh
# shellcheck source-path=SCRIPTDIR source=release-trust.sh
source "$bundle/deploy/release-trust.sh"
left=()
todo() { left+=("$1"); }
# Services whose configuration this run changed (restarted when systemd runs).
reload=()

# --- Files inside the root ---------------------------------------------------------------------
# Users, folders and secret files: install-common.sh (shared with upgrade.sh).

# put_file <source> <path in root> <mode> <group>: the file as given, replaced when it differs
# (then put_changed=yes).
put_changed=no
put_file() {
  local source=$1 target=$R$2 mode=$3 group=$4 gid status
  gid=$(gid_of "$group")
  put_changed=no
  if [[ -f "$target" ]] && cmp -s "$source" "$target" && [[ "$(stat -c '%a %u %g' "$target")" == "${mode#0} 0 $gid" ]]; then
    report "$2" ongewijzigd
    return
  fi
  put_changed=yes
  if [[ -e "$target" ]]; then status=bijgewerkt; else status=geschreven; fi
  mkdir -p "$(dirname "$target")"
  install -m "$mode" -o 0 -g "$gid" "$source" "$target.new"
  mv -f "$target.new" "$target"
  report "$2" "$status"
}

# with_names: deploy/'s example names replaced by the school's (through markers, so a name that
# contains another, say devplein.dev.school.nl, is replaced once).
with_names() {
  sed -e 's/beheer@school\.nl/@@email@@/g; s/phpmyadmin\.school\.nl/@@pma@@/g; s/devplein\.school\.nl/@@domain@@/g; s/vpn\.school\.nl/@@vpn@@/g; s/dev\.school\.nl/@@sites@@/g' \
    -e "s|@@email@@|$email|g; s|@@pma@@|$db_admin_host|g; s|@@domain@@|$domain|g; s|@@vpn@@|$vpn_host|g; s|@@sites@@|$site_domain|g"
}

# Secrets: openssl's random generator, in shapes the configs accept (secret_hex: install-common.sh).
secret_base64() { openssl rand -base64 "$1" | tr -d '\n'; }

# fill_env <template> KEY=value...: the template with those settings' CHANGE_ME replaced.
fill_env() {
  local template=$1 line key
  shift
  declare -A values=()
  local pair
  for pair in "$@"; do values[${pair%%=*}]=${pair#*=}; done
  while IFS= read -r line || [[ -n "$line" ]]; do
    key=${line%%=*}
    if [[ "$line" == *=* && -n "${values[$key]+set}" ]]; then line=${line//CHANGE_ME/${values[$key]}}; fi
    printf '%s\n' "$line"
  done <"$template" | with_names
}

# --- 0. The bundle's signature ---------------------------------------------------------------------
# The tarball beside the bundle against the school's signer, and the unpacked tree against the
# tarball. It keeps a wrong, damaged or unsigned bundle off the server; it cannot keep off a
# hostile one, whose install.sh would skip it: that is the installed release's devplein upgrade.
check_signature() {
  local tarball=$bundle.tar.gz recorded=no
  section "Handtekening van de bundel"
  # No signer given or recorded: on a terminal, the signature's key is shown and confirmed.
  if [[ -z "$signer" && "$unsigned" == no && ! -f "$R$signers_path" && -f "$tarball.sig" ]]; then
    need_ssh_keygen
    confirm_signature_key "$tarball.sig" || true
  fi
  if [[ -n "$signer" ]]; then
    need_ssh_keygen
    parse_signer "$signer" || exit 2
    if [[ -f "$R$signers_path" ]]; then
      signers_in "$R$signers_path" | awk -v f="$signer_fingerprint" '$2 == f { found = 1 } END { exit !found }' ||
        refuse "$exit_not_verified" "--signer $signer_principal ($signer_fingerprint) staat niet in $signers_path; een nieuwe releaseondertekenaar komt erbij met devplein release-signers add (docs/operations.md)"
      recorded=yes
    fi
  fi
  if [[ "$unsigned" == yes ]]; then
    local warning="LET OP: de handtekening van deze bundel is NIET gecontroleerd (--unsigned). Alleen voor tests en een eigen build van de school: wat deze bundel doet, is door niemand ondertekend."
    printf '\n   %s\n\n' "$warning"
    printf '%s: %s\n' "$trust_program" "$warning" >&2
  else
    if [[ -n "$signer" && "$recorded" == no ]]; then
      # Checked in a subshell: its temporary signers file goes whether the check passes or refuses.
      (
        signers=$(mktemp)
        trap 'rm -f "$signers"' EXIT
        signer_entry >"$signers"
        verify_release "$tarball" "$signers" "--signer"
      ) || exit $?
      verified_by="$signer_principal ($signer_fingerprint)"
    elif [[ -f "$R$signers_path" ]]; then
      verify_release "$tarball" "$R$signers_path" "$signers_path"
    else
      refuse "$exit_not_verified" "geen releaseondertekenaar: geef --signer '<naam> <sleuteltype> <sleutel>', de releasesleutel die de school publiceert (buiten deze bundel om gekregen), bevestig zijn vingerafdruk als install.sh erom vraagt (op een terminal), of geef --unsigned voor een eigen, onondertekende build"
    fi
    report "$(basename "$tarball")" "controlegetal klopt" "goed ondertekend door $verified_by"
    verify_unpacked "$tarball" "$bundle"
    report "$bundle" "gelijk aan de tarball"
  fi
  if [[ -n "$signer" && "$recorded" == no ]]; then
    local entry
    entry=$(mktemp)
    signer_entry >"$entry"
    write_signers "$entry"
    rm -f "$entry"
    audit_signers install.sh toegevoegd "$signer_principal" "$signer_fingerprint"
    report "$signers_path" geschreven "$signer_principal ($signer_fingerprint); wisselen: devplein release-signers"
  elif [[ "$recorded" == yes ]]; then
    report "$signers_path" ongewijzigd "$signer_principal staat er al in"
  fi
}
if [[ "$role" == upgrade ]]; then
  check_signature
  exec bash "$bundle/deploy/upgrade.sh" --root "$root"
fi
# --- The role ----------------------------------------------------------------------------------
systemd_dir=$bundle/deploy/systemd
# openssh-client in both: its ssh-keygen checks the release signatures (devplein upgrade).
case "$role" in
  control-plane)
    debian_packages=(postgresql caddy openssl openssh-client curl ca-certificates)
    units=(devplein-soketi.service devplein-control-plane.service)
    ;;
  agent)
    # git and openssh-client: the git runner's git and ssh (git deploys), the agent's ssh-keygen (deploy keys).
    # Recommends named because install.sh installs without them: fonts-liberation (text in the
    # thumbnails: Arial and Helvetica drawn with their metrics), apparmor (Debian 12's dockerd 20.10
    # refuses to start containers on an AppArmor kernel without apparmor_parser).
    debian_packages=(docker.io caddy mariadb-server chromium fonts-liberation apparmor git openssh-client wireguard-tools wireguard-go iptables openssl curl ca-certificates)
    units=(devplein-browser.service devplein-git.service devplein-agent.service)
    # Debian 13 splits docker's command line off into docker-cli, a recommend of docker.io there:
    # the sysadmin's `docker ps` needs it (Debian 12's docker.io has the command itself).
    if [[ "$(debian_release)" == 13 ]]; then debian_packages+=(docker-cli); fi
    ;;
esac

echo "devplein $version installeren: rol $role, in ${R:-/} (bundel $bundle)"
case "$(debian_release)" in
  12 | 13) ;;
  *) echo "Let op: devplein is getest op Debian 12 en 13; dit is $(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\).*/\1/p' "$R/etc/os-release" 2>/dev/null || echo 'een onbekend systeem'). Ga door op eigen risico." >&2 ;;
esac
# Before anything is written when ssh-keygen is here; else once the packages brought it.
signature_checked=no
if [[ "$unsigned" == yes ]] || command -v ssh-keygen >/dev/null; then
  check_signature
  signature_checked=yes
fi

# --- 1. Debian packages ------------------------------------------------------------------------
section "Debian-pakketten: ${debian_packages[*]}"
case "$packages" in
  skip) report "pakketten" overgeslagen "--packages=skip" ;;
  simulate)
    # What apt would do on this machine (apt-get -s needs no root and changes nothing).
    simulation=$(apt-get -s install --no-install-recommends "${debian_packages[@]}" 2>&1) || {
      printf '%s\n' "$simulation" | sed 's/^/     /'
      fail "apt-get -s install failed"
    }
    printf '%s\n' "$simulation" | grep -E '^Inst |is already the newest version' | sed 's/^/     /' || true
    report "pakketten" "gesimuleerd" "apt-get -s, niets geïnstalleerd"
    ;;
  install)
    missing=()
    for package in "${debian_packages[@]}"; do
      dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
      report "pakketten" ongewijzigd "alle al geïnstalleerd"
    else
      apt-get update -q
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
      report "pakketten" geïnstalleerd "${missing[*]}"
    fi
    ;;
esac

[[ "$signature_checked" == yes ]] || check_signature

# From here on (secrets, certificates). A minimal Debian has no openssl: the step above installs it.
command -v openssl >/dev/null || fail "openssl is missing (apt-get install openssl, or run without --packages=$packages)"

# --- 2. System users ---------------------------------------------------------------------------
section "Systeemgebruikers"
case "$role" in
  control-plane)
    ensure_user devplein /var/lib/devplein
    ensure_user devplein-soketi /nonexistent
    ;;
  agent)
    # docker.io makes this group; made here too when the packages were not installed (--root).
    ensure_group docker
    ensure_user devplein-agent /var/lib/devplein-agent docker
    # devplein-browser (screenshot browser), devplein-git (git runner; the agent reads its
    # checkouts through the group, SupplementaryGroups= in its unit): install-common.sh.
    ensure_agent_helper_users
    ;;
esac

# --- 3. The bundle in /opt/devplein --------------------------------------------------------------
section "Bundel in /opt/devplein"
release_dir=/opt/devplein/releases/$version
mkdir -p "$R/opt/devplein/releases"
if [[ -d "$R$release_dir" ]]; then
  report "$release_dir" ongewijzigd "versie $version staat er al"
else
  # Copied next to its final place and renamed, so a half copy never looks installed.
  partial="$R/opt/devplein/releases/.$version.partial"
  rm -rf "$partial"
  cp -R --preserve=mode,timestamps,links "$bundle/." "$partial"
  chown -R 0:0 "$partial"
  chmod -R go-w "$partial"
  mv "$partial" "$R$release_dir"
  report "$release_dir" gekopieerd
fi
current=$(readlink "$R/opt/devplein/current" 2>/dev/null || true)
if [[ "$current" == "releases/$version" ]]; then
  report "/opt/devplein/current" ongewijzigd "→ releases/$version"
elif [[ -z "$current" && ! -e "$R/opt/devplein/current" ]]; then
  ln -s "releases/$version" "$R/opt/devplein/current"
  report "/opt/devplein/current" aangemaakt "→ releases/$version"
else
  report "/opt/devplein/current" ongewijzigd "wijst naar ${current:-?}; een andere versie installeren is een upgrade: ./install.sh upgrade"
  todo "Er was al een andere versie geïnstalleerd (/opt/devplein/current → $current); deze installatie heeft die laten staan. Naar versie $version: ./install.sh upgrade"
fi
mkdir -p "$R/usr/local/bin"
if [[ "$(readlink "$R/usr/local/bin/devplein" 2>/dev/null || true)" == /opt/devplein/current/bin/devplein ]]; then
  report "/usr/local/bin/devplein" ongewijzigd
else
  ln -sfn /opt/devplein/current/bin/devplein "$R/usr/local/bin/devplein"
  report "/usr/local/bin/devplein" aangemaakt "→ /opt/devplein/current/bin/devplein"
fi

# --- 4. Env files with fresh secrets -----------------------------------------------------------
section "Instellingen in /etc/devplein (nieuwe geheimen, bestaande bestanden blijven)"
ensure_dir /etc/devplein 0755 root
case "$role" in
  control-plane)
    keep_or_write /etc/devplein/control-plane.env 0640 devplein \
      fill_env "$systemd_dir/devplein-control-plane.env" \
      "SESSION_SECRET=$(secret_base64 48)" "ENCRYPTION_KEY=$(secret_base64 32)" \
      "REALTIME_SECRET=$(secret_hex 24)" "DATABASE_URL=$(secret_hex 24)"
    # soketi's app equals the control plane's REALTIME_* (whichever env file is in place).
    cp_env=$R/etc/devplein/control-plane.env
    soketi_env() {
      printf '# /etc/devplein/soketi.env — environment of devplein-soketi.service (written by install.sh).\n'
      printf '# Must equal REALTIME_APP_ID, REALTIME_KEY and REALTIME_SECRET in control-plane.env.\n'
      printf 'SOKETI_DEFAULT_APP_ID=%s\n' "$(env_value "$cp_env" REALTIME_APP_ID)"
      printf 'SOKETI_DEFAULT_APP_KEY=%s\n' "$(env_value "$cp_env" REALTIME_KEY)"
      printf 'SOKETI_DEFAULT_APP_SECRET=%s\n' "$(env_value "$cp_env" REALTIME_SECRET)"
    }
    keep_or_write /etc/devplein/soketi.env 0640 devplein-soketi soketi_env
    ;;
  agent)
    keep_or_write /etc/devplein/agent.env 0640 devplein-agent \
      fill_env "$systemd_dir/devplein-agent.env" "AGENT_MYSQL_URL=$(secret_hex 24)"
    # Shared by the agent and the browser server, and by the agent and the git runner; systemd
    # hands each to both units as a credential (install-common.sh).
    ensure_agent_helper_secrets
    ;;
esac
# Backups (devplein-backup.timer): the key that encrypts them (never inside an archive), the
# settings of the nightly run, and the folder the archives go to. A machine with both roles backs
# up both: the second role is added to BACKUP_ROLE.
keep_or_write /etc/devplein/backup.key 0400 root secret_base64 32
backup_env() {
  printf '# /etc/devplein/backup.env — settings of devplein-backup.service (written by install.sh; docs/operations.md, Backups).\n'
  printf 'BACKUP_ROLE=%s\n' "$role"
  printf 'BACKUP_DIR=/var/backups/devplein\n'
  printf 'BACKUP_KEEP=14\n'
  printf 'BACKUP_KEY_FILE=/etc/devplein/backup.key\n'
}
keep_or_write /etc/devplein/backup.env 0600 root backup_env
if ! [[ " $(env_value "$R/etc/devplein/backup.env" BACKUP_ROLE | tr ',' ' ') " == *" $role "* ]]; then
  sed -i "s/^BACKUP_ROLE=\(.*\)\$/BACKUP_ROLE=\1 $role/" "$R/etc/devplein/backup.env"
  report /etc/devplein/backup.env bijgewerkt "rol $role toegevoegd aan BACKUP_ROLE"
fi
ensure_dir /var/backups/devplein 0700 root
todo "Backups: kopieer /etc/devplein/backup.key naar een veilige plek buiten deze server (zonder die sleutel is geen backup terug te zetten); kopieer ook /var/backups/devplein geregeld naar een andere machine. Zie docs/operations.md, Backups."

# --- 5. Certificates of the agent link ----------------------------------------------------------
section "Certificaten van de agentverbinding (deploy/certs)"
# The link's CA and both leaf certificates are made in /etc/devplein/ca (root only); each role
# gets its own copies. A role whose three files exist keeps them.
case "$role" in
  control-plane) leaf=control-plane; cert_dir=/etc/devplein/control-plane; cert_group=devplein ;;
  agent) leaf=agent; cert_dir=/etc/devplein/agent; cert_group=devplein-agent ;;
esac
# join_agent: the key made here, a CSR sent with the token, the certificate and CA that come back
# checked (the CA's sha256 against the join string, the certificate against the CA and the key)
# and only then installed. The marker file names the join string's hash, so a second run with
# the same string changes nothing (its token is used up).
join_marker=$cert_dir/joined-with.sha256
join_hash=$(printf '%s' "$join" | sha256sum | cut -d' ' -f1)
join_agent() {
  local work csr body status
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" RETURN
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/agent-key.pem" 2>/dev/null
  # The subject is ignored by the control plane: it signs agent-<name> (server use only).
  openssl req -new -key "$work/agent-key.pem" -subj "/CN=devplein-agent-join" -out "$work/agent.csr" 2>/dev/null
  # The link CA first: checked against the string before the one-time token is spent.
  status=$(curl -sS --proto '=https,http' --max-time 30 -o "$work/link-ca.pem" -w '%{http_code}' "$join_url/api/agents/ca") ||
    fail "--join: $join_url not reached (curl)"
  [[ "$status" == 200 ]] || fail "--join: the control plane answered $status for its CA: $(head -c 300 "$work/link-ca.pem")"
  [[ "$(openssl x509 -in "$work/link-ca.pem" -outform DER 2>/dev/null | sha256sum | cut -d' ' -f1)" == "$join_ca_sha256" ]] ||
    fail "--join: the CA of $join_url is not the one of the join string (sha256 differs): nothing sent, nothing installed"
  csr=$(awk '{ printf "%s\\n", $0 }' "$work/agent.csr")
  body="{\"csr\":\"$csr\"}"
  # The token in a header file (in the 0700 folder), not on curl's command line (ps shows that).
  (umask 077 && printf 'Authorization: Bearer %s\n' "$join_token" >"$work/authorization")
  status=$(curl -sS --proto '=https,http' --max-time 60 -o "$work/answer" -w '%{http_code}' \
    -H @"$work/authorization" -H 'Content-Type: application/json' -H 'Accept: application/x-pem-file' \
    --data-binary "$body" "$join_url/api/agents/join") || fail "--join: $join_url not reached (curl)"
  [[ "$status" == 200 ]] || fail "--join: the control plane answered $status: $(head -c 300 "$work/answer")"
  awk -v cert="$work/agent.pem" -v ca="$work/ca.pem" '/-----BEGIN CERTIFICATE-----/ { n++ } { print > (n == 1 ? cert : ca) }' "$work/answer"
  [[ -s "$work/agent.pem" && -s "$work/ca.pem" ]] || fail "--join: the answer holds no certificate and CA"
  [[ "$(openssl x509 -in "$work/ca.pem" -outform DER | sha256sum | cut -d' ' -f1)" == "$join_ca_sha256" ]] ||
    fail "--join: the CA that came back is not the one of the join string (sha256 differs): nothing installed"
  openssl verify -CAfile "$work/ca.pem" -purpose sslserver "$work/agent.pem" >/dev/null || fail "--join: the certificate is not a server certificate of that CA"
  [[ "$(openssl x509 -in "$work/agent.pem" -noout -pubkey)" == "$(openssl pkey -in "$work/agent-key.pem" -pubout)" ]] ||
    fail "--join: the certificate is not for the key made here"
  ensure_dir "$cert_dir" 0750 "$cert_group"
  gid=$(gid_of "$cert_group")
  install -m 0644 -o 0 -g 0 "$work/ca.pem" "$work/agent.pem" "$R$cert_dir/"
  install -m 0640 -o 0 -g "$gid" "$work/agent-key.pem" "$R$cert_dir/"
  printf '%s\n' "$join_hash" >"$R$join_marker"
  # Where `devplein agent renew` (devplein-agent-renew.timer) asks for the next certificate.
  printf '%s\n' "$join_url" >"$R$cert_dir/control-plane-url"
  report "$cert_dir" geschreven "gekoppeld: $(openssl x509 -in "$work/agent.pem" -noout -subject -nameopt RFC2253 | sed 's/^subject= *//'), sleutel hier gemaakt"
  # The control plane's client certificate is the one the agent admits.
  if [[ "$(env_value "$R/etc/devplein/agent.env" AGENT_ALLOWED_CLIENTS)" != devplein-control-plane ]]; then
    sed -i 's/^AGENT_ALLOWED_CLIENTS=.*/AGENT_ALLOWED_CLIENTS=devplein-control-plane/' "$R/etc/devplein/agent.env"
    report /etc/devplein/agent.env bijgewerkt "AGENT_ALLOWED_CLIENTS=devplein-control-plane"
  fi
  reload+=(devplein-agent)
  todo "Gekoppeld aan $join_url. Laat de agent luisteren op het adres van de uitnodiging (AGENT_LISTEN in /etc/devplein/agent.env, bijvoorbeeld 0.0.0.0:7443) en laat poort 7443/tcp alleen toe vanaf de control plane."
}
if [[ -n "$join" ]]; then
  if [[ -f "$R$join_marker" && "$(cat "$R$join_marker")" == "$join_hash" && -f "$R$cert_dir/agent.pem" ]]; then
    report "$cert_dir" ongewijzigd "al gekoppeld met deze koppelopdracht"
  else
    join_agent
  fi
elif [[ -f "$R$cert_dir/ca.pem" && -f "$R$cert_dir/$leaf.pem" && -f "$R$cert_dir/$leaf-key.pem" ]]; then
  # Kept; copied here by hand from the other machine, they may lack the service's group.
  gid=$(gid_of "$cert_group")
  if [[ "$(stat -c '%a %u %g' "$R$cert_dir" "$R$cert_dir/ca.pem" "$R$cert_dir/$leaf.pem" "$R$cert_dir/$leaf-key.pem" | tr '\n' ' ')" == "750 0 $gid 644 0 0 644 0 0 640 0 $gid " ]]; then
    report "$cert_dir" ongewijzigd "ca.pem, $leaf.pem, $leaf-key.pem bestaan al"
  else
    chown "0:$gid" "$R$cert_dir" "$R$cert_dir/$leaf-key.pem"
    chown 0:0 "$R$cert_dir/ca.pem" "$R$cert_dir/$leaf.pem"
    chmod 0750 "$R$cert_dir"
    chmod 0640 "$R$cert_dir/$leaf-key.pem"
    chmod 0644 "$R$cert_dir/ca.pem" "$R$cert_dir/$leaf.pem"
    report "$cert_dir" bijgewerkt "bestaande bestanden; eigenaar en rechten hersteld"
  fi
else
  ensure_dir /etc/devplein/ca 0700 root
  "$bundle/deploy/certs/make-certs.sh" "$R/etc/devplein/ca" ${agent_host:+"$agent_host"} 2>&1 | sed 's/^/     /'
  ensure_dir "$cert_dir" 0750 "$cert_group"
  gid=$(gid_of "$cert_group")
  install -m 0644 -o 0 -g 0 "$R/etc/devplein/ca/ca.pem" "$R/etc/devplein/ca/$leaf.pem" "$R$cert_dir/"
  install -m 0640 -o 0 -g "$gid" "$R/etc/devplein/ca/$leaf-key.pem" "$R$cert_dir/"
  report "$cert_dir" geschreven "ca.pem, $leaf.pem, $leaf-key.pem"
  if [[ "$role" == control-plane ]]; then
    todo "Agent op een andere machine: devplein agent invite <naam> --address <naam:7443> --site-domain <domein> hier, en de opdracht die dat geeft daar (sudo ./install.sh agent --join -, dan de koppelcode plakken); zie docs/operations.md, \"Een ontwikkelserver toevoegen\"."
  else
    todo "Control plane op een andere machine: kopieer ca.pem, control-plane.pem en control-plane-key.pem uit /etc/devplein/ca hierheen naar /etc/devplein/control-plane/ daar, vóór install.sh control-plane daar (die houdt ze dan). Bewaar /etc/devplein/ca/ca-key.pem daarna offline."
  fi
fi
if [[ "$role" == control-plane && -f "$R/etc/devplein/ca/ca-key.pem" ]]; then
  # The link CA's key, for the control plane to sign the certificate of a dev server that joins
  # (AGENT_CA_KEY_FILE): readable by its group, as its own client key is.
  gid=$(gid_of devplein)
  ca_key=/etc/devplein/control-plane/ca-key.pem
  if [[ -f "$R$ca_key" ]] && cmp -s "$R/etc/devplein/ca/ca-key.pem" "$R$ca_key" && [[ "$(stat -c '%a %u %g' "$R$ca_key")" == "640 0 $gid" ]]; then
    report "$ca_key" ongewijzigd
  else
    install -m 0640 -o 0 -g "$gid" "$R/etc/devplein/ca/ca-key.pem" "$R$ca_key"
    report "$ca_key" geschreven "de CA-sleutel waarmee de control plane koppelende ontwikkelservers tekent"
  fi
fi

# --- 6. systemd units ------------------------------------------------------------------------------
section "systemd-units in /etc/systemd/system"
# A dev server also gets its certificate renewal and the template of a WireGuard interface of
# its own unit (devplein-wireguard@.service: enabled by hand, see the file).
agent_units=()
[[ "$role" != agent ]] || agent_units=(devplein-agent-renew.service devplein-agent-renew.timer devplein-wireguard@.service)
for unit in "${units[@]}" devplein-backup.service devplein-backup.timer "${agent_units[@]}"; do
  put_file "$systemd_dir/$unit" "/etc/systemd/system/$unit" 0644 root
done

# --- 7. Caddy, MariaDB ------------------------------------------------------------------------------
section "Caddy$([[ "$role" == agent ]] && echo ', MariaDB')"
caddyfile=$R/etc/caddy/Caddyfile
if [[ -f "$caddyfile" ]] && grep -q devplein "$caddyfile"; then
  report /etc/caddy/Caddyfile ongewijzigd "is al die van devplein"
else
  # Debian's own (a static file server on :80) would take the port the agent's sites need.
  [[ ! -f "$caddyfile" ]] || mv "$caddyfile" "$caddyfile.voor-devplein"
  named_caddyfile=$(mktemp)
  # The example names Debian 12's PHP-FPM socket; each Debian release has its own PHP.
  with_names <"$bundle/deploy/caddy/Caddyfile" | sed "s|/run/php/php8\.2-fpm\.sock|/run/php/php$(php_version)-fpm.sock|" >"$named_caddyfile"
  put_file "$named_caddyfile" /etc/caddy/Caddyfile 0644 root
  rm -f "$named_caddyfile"
  reload+=(caddy.service)
fi
# deploy/'s example names, as whole names.
example_names='(^|[^A-Za-z0-9.-])(devplein|dev|vpn|phpmyadmin)\.school\.nl([^A-Za-z0-9.-]|$)|beheer@school\.nl'
if with_examples=$(grep -lE "$example_names" "$caddyfile" "$R/etc/devplein/"*.env); then
  [[ -z "$R" ]] || with_examples=${with_examples//"$R"/}
  todo "Namen: ${with_examples//$'\n'/, } noemen nog voorbeeldnamen (devplein.school.nl, phpmyadmin.school.nl, dev.school.nl, vpn.school.nl, beheer@school.nl); vervang die door die van de school en doe daarna systemctl reload caddy (of geef --domain, --db-admin-host, --site-domain, --vpn-host en --email bij de eerste installatie)."
fi
# The names as the env file in place has them (an existing one may predate this run's options).
if [[ "$role" == control-plane ]]; then
  app_url=$(env_value "$R/etc/devplein/control-plane.env" APP_URL)
  app_host=${app_url#*://}
  db_admin_url=$(env_value "$R/etc/devplein/control-plane.env" DB_ADMIN_URL)
  db_admin_name=${db_admin_url#*://}
  todo "DNS: ${app_host%%[:/]*} en ${db_admin_name%%[:/]*} (phpMyAdmin, een eigen naam en certificaat) naar deze server, poorten 80 en 443 open voor iedereen (Let's Encrypt); *.$(env_value "$R/etc/devplein/control-plane.env" SITE_DOMAIN) (wildcard) naar de ontwikkelserver (de agent)."
else
  wg_endpoint=$(env_value "$R/etc/devplein/agent.env" AGENT_WG_ENDPOINT)
  todo "DNS: *.$(env_value "$R/etc/devplein/agent.env" AGENT_SITE_DOMAIN) (wildcard) en ${wg_endpoint%:*} (VPN) naar deze server; poorten 80 en 443 open voor iedereen (Let's Encrypt)."
fi
if [[ "$role" == agent ]]; then
  mariadb_conf=$(mktemp)
  printf '# Written by devplein install.sh: students reach MariaDB over the VPN (10.8.0.1) and\n# containers over Docker; the firewall admits 3306 only from those networks.\n[mysqld]\nbind-address = 0.0.0.0\n' >"$mariadb_conf"
  put_file "$mariadb_conf" /etc/mysql/mariadb.conf.d/60-devplein.cnf 0644 root
  [[ "$put_changed" == no ]] || reload+=(mariadb.service)
  rm -f "$mariadb_conf"
  todo "Firewall: in 80/tcp en 443/tcp (iedereen), 51820/udp (VPN), 2200-2999/tcp (SSH naar containers); 3306 alleen vanaf 10.8.0.0/24, het Docker-netwerk en loopback."
fi

# --- 8. Logs ---------------------------------------------------------------------------------------
section "Logs"
report "logrotate" "niet nodig" "alles gaat naar journald: journalctl -u devplein-$role"

# --- 9. Databases -----------------------------------------------------------------------------------
section "Database$([[ "$role" == control-plane ]] && echo ' en migraties')"
# shellcheck source-path=SCRIPTDIR source=install-database.sh
source "$bundle/deploy/install-database.sh"
if [[ "$role" == control-plane ]]; then
  if ! on_real_root; then
    report "PostgreSQL" overgeslagen "--root: de control plane voert de migraties uit bij zijn eerste start"
  else
    control_plane_database /etc/devplein/control-plane.env devplein /opt/devplein/current/bin/devplein
  fi
elif ! on_real_root; then
  report "MariaDB-account van de agent" overgeslagen "--root"
  todo "MariaDB: maak het account uit AGENT_MYSQL_URL (/etc/devplein/agent.env) aan, zie docs/operations.md stap 5."
else
  agent_mariadb_account /etc/devplein/agent.env
fi

# --- 10. Start ----------------------------------------------------------------------------------------
section "Starten"
if [[ "$start" == no ]]; then
  report "units" "niet gestart" "--no-start"
elif ! on_real_root; then
  report "units" "niet gestart" "--root"
elif [[ ! -d /run/systemd/system ]]; then
  report "units" "niet gestart" "systemd draait hier niet"
else
  systemctl daemon-reload
  for service in "${reload[@]}"; do
    if systemctl try-reload-or-restart "$service"; then report "$service" "opnieuw geladen"; else report "$service" "niet opnieuw geladen" "journalctl -u $service"; fi
  done
  to_start=("${units[@]}")
  if [[ "$role" == control-plane ]] && grep -q CHANGE_ME "$R/etc/devplein/control-plane.env"; then
    # It would stop at once with exit code 78 (configuration), naming each placeholder.
    to_start=(devplein-soketi.service)
    systemctl enable devplein-control-plane.service
    report devplein-control-plane.service "ingeschakeld, niet gestart" "OIDC_* is nog CHANGE_ME"
  fi
  if systemctl enable --now "${to_start[@]}"; then
    report "${to_start[*]}" "ingeschakeld en gestart"
  else
    report "${to_start[*]}" "start mislukt" "systemctl status ${to_start[*]}"
    todo "Niet gestart: systemctl status ${to_start[*]}; journalctl -u devplein-$role -e"
  fi
  # The nightly backup: only its timer is enabled (starting the service itself would back up now).
  if systemctl enable --now devplein-backup.timer; then report devplein-backup.timer "ingeschakeld" "elke nacht; systemctl list-timers devplein-backup.timer"; else todo "Backuptimer niet ingeschakeld: systemctl status devplein-backup.timer"; fi
  # A joined dev server renews its own certificate (only within 30 days of its end).
  if [[ "$role" == agent ]]; then
    if systemctl enable --now devplein-agent-renew.timer; then report devplein-agent-renew.timer "ingeschakeld" "elke nacht; vernieuwt het agentcertificaat vanaf 30 dagen voor het einde"; else todo "Vernieuwtimer niet ingeschakeld: systemctl status devplein-agent-renew.timer"; fi
  fi
  case "$role" in
    control-plane) health=http://127.0.0.1:$(env_value /etc/devplein/control-plane.env PORT)/healthz ;;
    agent) health=http://$(env_value /etc/devplein/agent.env AGENT_METRICS_LISTEN)/healthz ;;
  esac
  if [[ " ${to_start[*]} " == *" devplein-$role.service "* ]]; then
    answer=""
    for _ in $(seq 60); do
      if answer=$(curl -fsS --max-time 2 "$health" 2>/dev/null); then break; fi
      answer=""
      sleep 1
    done
    if [[ -n "$answer" ]]; then
      report "$health" "antwoordt" "$answer"
    else
      report "$health" "antwoordt niet" "journalctl -u devplein-$role -e"
      todo "devplein-$role draait niet goed: journalctl -u devplein-$role -e"
    fi
  fi
fi

# --- What is left -------------------------------------------------------------------------------------
section "Nog te doen"
if [[ "$role" == control-plane ]]; then
  todo "Inloggen via de school: vul OIDC_ISSUER, OIDC_CLIENT_ID en OIDC_CLIENT_SECRET in /etc/devplein/control-plane.env in (deploy/oidc/entra-id.md of surfconext.md); daarna: systemctl restart devplein-control-plane."
  todo "De eerste beheerder: zet het adres in INITIAL_ADMIN_EMAILS in /etc/devplein/control-plane.env, of na de start: systemd-run --uid=devplein --gid=devplein --wait --pipe -p EnvironmentFile=/etc/devplein/control-plane.env /opt/devplein/current/bin/devplein admin create --email beheerder@school.nl"
fi
if [[ "$start" == no ]] || ! on_real_root || [[ ! -d /run/systemd/system ]]; then
  todo "Starten: systemctl daemon-reload && systemctl enable --now ${units[*]}$([[ ${#reload[@]} -eq 0 ]] || echo "; en voor de nieuwe instellingen: systemctl try-reload-or-restart ${reload[*]}")"
fi
for item in "${left[@]}"; do printf ' - %s\n' "$item"; done

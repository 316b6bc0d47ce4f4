#!/usr/bin/env bash
# verified-upgrade.sh — `devplein upgrade <tarball>` of the INSTALLED release (bin/devplein runs
# this file from its own bundle, /opt/devplein/current): a check inside the bundle being installed
# proves nothing, since a changed bundle would carry a changed check. So this release's code checks
# the new one before any of the new one's code runs:
#   1. the tarball, its .sha256 and .sig copied into a folder only root can write (nobody swaps
#      them between the check and the unpacking);
#   2. checksum and signature against /etc/devplein/release-signers (release-trust.sh): exit 3;
#   3. its VERSION newer than the installed one (/opt/devplein/current): exit 4 otherwise;
#   4. unpacked there, and the NEW bundle's deploy/upgrade.sh run (its exit code: 1 failed and
#      rolled back, 2 the old version did not come back either); the folder removed afterwards.
#
#   sudo devplein upgrade [--root DIR] devplein-<version>.tar.gz
set -euo pipefail

trust_program="devplein upgrade"
usage() {
  echo 'Gebruik: devplein upgrade [--root MAP] devplein-<versie>.tar.gz   (met .sha256 en .sig ernaast)'
}

root=/
tarball=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; root=$2; shift ;;
    --root=*) root=${1#--root=} ;;
    -h | --help) usage; exit 0 ;;
    -*) usage >&2; exit 2 ;;
    *) [[ -z "$tarball" ]] || { usage >&2; exit 2; }; tarball=$1 ;;
  esac
  shift
done
[[ -n "$tarball" ]] || { usage >&2; exit 2; }
[[ -d "$root" ]] || { echo "$trust_program: --root $root is geen map" >&2; exit 2; }
root=$(cd "$root" && pwd -P)
R=${root%/}
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source-path=SCRIPTDIR source=release-trust.sh
source "$here/release-trust.sh"
[[ $EUID -eq 0 ]] || refuse 1 "voer uit als root (sudo devplein upgrade $tarball)"
# Absolute, but not through a symlink: its .sha256 and .sig are beside the name given.
[[ -f "$tarball" ]] || refuse "$exit_not_verified" "$tarball bestaat niet"
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

current_link=$(readlink "$R/opt/devplein/current" 2>/dev/null || true)
[[ "$current_link" =~ ^releases/([0-9A-Za-z.+-]+)$ ]] ||
  refuse 1 "/opt/devplein/current wijst niet naar een versie in /opt/devplein/releases (nu: '${current_link:-ontbreekt}'): eerst ./install.sh control-plane of agent"
installed=${BASH_REMATCH[1]}

# 1. Private copies: root's folder under /opt/devplein (the same disk as the releases).
work=$(mktemp -d "$R/opt/devplein/.upgrade.XXXXXXXX")
trap 'rm -rf "$work"' EXIT
name=$(basename "$tarball")
for file in "$tarball" "$tarball.sha256" "$tarball.sig"; do
  [[ ! -f "$file" ]] || cp "$file" "$work/"
done

# 2. Checksum and signature.
echo "devplein upgrade: $tarball controleren (geïnstalleerd: $installed)"
verify_release "$work/$name" "$R$signers_path" "$signers_path" "$tarball"
echo "   $name: controlegetal klopt, goed ondertekend door $verified_by"

# 3. Newer than what is installed: read from the checked tarball, before unpacking it (VERSION
# sorts near the start of the tarball; tar stops at the first match).
new=$(tar -xzOf "$work/$name" --occurrence=1 --wildcards --no-wildcards-match-slash 'devplein-*/VERSION' 2>/dev/null | tr -d '[:space:]') || true
[[ "$new" =~ ^[0-9A-Za-z.+-]+$ ]] || refuse "$exit_not_verified" "$name heeft geen devplein-<versie>/VERSION: geen releasebundel"
[[ "$new" != "$installed" ]] || refuse "$exit_not_newer" "versie $new is al geïnstalleerd; niets gedaan"
[[ "$(printf '%s\n%s\n' "$installed" "$new" | sort -V | tail -n 1)" == "$new" ]] ||
  refuse "$exit_not_newer" "versie $new is ouder dan de geïnstalleerde $installed; terug naar een oudere versie gaat met de hand (docs/operations.md, Upgrade)"

# 4. Unpacked, then the new version's own upgrade.
tar -xzf "$work/$name" -C "$work"
[[ -f "$work/devplein-$new/deploy/upgrade.sh" ]] || refuse "$exit_not_verified" "$name heeft geen devplein-$new/deploy/upgrade.sh"
echo "   uitgepakt in $work; nu deploy/upgrade.sh van $new"
status=0
bash "$work/devplein-$new/deploy/upgrade.sh" --root "$root" || status=$?
exit "$status"

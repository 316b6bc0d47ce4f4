#!/usr/bin/env bash
# release-signers.sh — `devplein release-signers list|add|remove`: the school's release signers in
# /etc/devplein/release-signers, whose signatures `devplein upgrade` accepts. A rotation: add the
# new key, upgrade with a release it signed, remove the old one. Every change replaces the file in
# one rename and is recorded (who, what, when) in the journal (logger -t devplein) and in
# /var/log/devplein/release-signers.log; the last signer is never removed.
#
#   devplein release-signers list
#   sudo devplein release-signers add '<naam> <sleuteltype> <sleutel>'   (een regel van de .pub)
#   sudo devplein release-signers remove <naam|SHA256:vingerafdruk>
set -euo pipefail

trust_program="devplein release-signers"
usage() {
  cat <<'USAGE'
Gebruik: devplein release-signers list
         devplein release-signers add '<naam> <sleuteltype> <sleutel>'    bijvoorbeeld 'release@school.nl ssh-ed25519 AAAA…'
         devplein release-signers remove <naam|SHA256:vingerafdruk>
         (--root MAP: in een andere root dan /)
USAGE
}

root=/
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; root=$2; shift ;;
    --root=*) root=${1#--root=} ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1") ;;
  esac
  shift
done
set -- "${args[@]}"
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
[[ -d "$root" ]] || { echo "$trust_program: --root $root is geen map" >&2; exit 2; }
root=$(cd "$root" && pwd -P)
R=${root%/}
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source-path=SCRIPTDIR source=release-trust.sh
source "$here/release-trust.sh"
need_ssh_keygen
file=$R$signers_path

case "$1" in
  list)
    [[ $# -eq 1 ]] || { usage >&2; exit 2; }
    [[ -s "$file" ]] || refuse 1 "geen releaseondertekenaars: $signers_path ontbreekt of is leeg (install.sh --signer, of devplein release-signers add)"
    signers_in "$file"
    ;;
  add)
    [[ $# -eq 2 ]] || { usage >&2; exit 2; }
    [[ $EUID -eq 0 ]] || refuse 1 "voer uit als root (sudo devplein release-signers add …)"
    parse_signer "$2" || exit 2
    if [[ -f "$file" ]] && signers_in "$file" | awk -v f="$signer_fingerprint" '$2 == f { found = 1 } END { exit !found }'; then
      echo "$signer_principal ($signer_fingerprint) staat er al in $signers_path; niets veranderd"
      exit 0
    fi
    next=$(mktemp)
    trap 'rm -f "$next"' EXIT
    { [[ ! -f "$file" ]] || cat "$file"; signer_entry; } >"$next"
    write_signers "$next"
    audit_signers "devplein release-signers" toegevoegd "$signer_principal" "$signer_fingerprint"
    echo "$signer_principal ($signer_fingerprint) toegevoegd aan $signers_path; devplein upgrade aanvaardt nu ook zijn releases"
    ;;
  remove)
    [[ $# -eq 2 ]] || { usage >&2; exit 2; }
    [[ $EUID -eq 0 ]] || refuse 1 "voer uit als root (sudo devplein release-signers remove …)"
    [[ -s "$file" ]] || refuse 1 "geen releaseondertekenaars in $signers_path"
    # The lines to keep and the ones that go, by principal or fingerprint (signers_in's order is the file's).
    next=$(mktemp)
    trap 'rm -f "$next"' EXIT
    removed=()
    kept=0
    mapfile -t listed < <(signers_in "$file")
    index=0
    while IFS= read -r line || [[ -n "$line" ]]; do
      if [[ "$line" =~ ^[[:space:]]*(#|$) ]]; then
        printf '%s\n' "$line" >>"$next"
        continue
      fi
      entry=${listed[index]}
      index=$((index + 1))
      if [[ "${entry%% *}" == "$2" || "${entry#* }" == "$2" ]]; then
        removed+=("$entry")
      else
        printf '%s\n' "$line" >>"$next"
        kept=$((kept + 1))
      fi
    done <"$file"
    [[ ${#removed[@]} -gt 0 ]] || refuse 1 "$2 staat niet in $signers_path (devplein release-signers list)"
    [[ $kept -gt 0 ]] || refuse 1 "$2 is de laatste releaseondertekenaar: voeg eerst de nieuwe toe (devplein release-signers add), anders aanvaardt devplein upgrade geen enkele release meer"
    write_signers "$next"
    for entry in "${removed[@]}"; do
      audit_signers "devplein release-signers" verwijderd "${entry%% *}" "${entry#* }"
      echo "${entry%% *} (${entry#* }) verwijderd uit $signers_path"
    done
    ;;
  *) usage >&2; exit 2 ;;
esac

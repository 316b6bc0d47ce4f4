# release-trust.sh — which releases a server trusts (issue 33): the school's release signers in
# /etc/devplein/release-signers (OpenSSH allowed_signers, given out of band at the first install),
# the check of a tarball's .sha256 and .sig against them, the check that an unpacked bundle is its
# tarball, and the audited writes of the signers file. Sourced, not run, by install.sh and by the
# installed release's `devplein upgrade` and `devplein release-signers` (verified-upgrade.sh,
# release-signers.sh); the sourcing script sets R (the root's prefix, empty for /) and
# trust_program (the name its messages start with).
# shellcheck shell=bash

# The namespace scripts/lib/release/sign.ts signs in: a signature for a git commit or any other
# program's file is no release signature.
release_namespace=devplein-release
signers_path=/etc/devplein/release-signers
signers_log=/var/log/devplein/release-signers.log
# Exit codes: 3 not verified (no, a wrong or a foreign signature; a changed tarball or tree),
# 4 not newer than what is installed. 1 and 2 are upgrade.sh's (failed; old version not healthy).
exit_not_verified=3
# shellcheck disable=SC2034 # used by verified-upgrade.sh
exit_not_newer=4

# refuse <exit code> <message>
refuse() {
  local code=$1
  shift
  printf '%s: %s\n' "${trust_program:-devplein}" "$*" >&2
  exit "$code"
}

# The key types OpenSSH signs with.
signer_key_types='ssh-ed25519|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521|ssh-rsa|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com'

# parse_signer '<principal> <key type> <base64> [comment]' (or a line of a release-signers file,
# with its options): sets signer_principal, signer_key ('<type> <base64>') and signer_fingerprint
# (SHA256:…), or says why not and returns 1.
parse_signer() {
  local principal type base64
  read -r principal type base64 _ <<<"$1"
  # namespaces="…" and the other allowed_signers options (without spaces) before the key.
  [[ "$type" != *=* ]] || read -r principal _ type base64 _ <<<"$1"
  if [[ ! "$principal" =~ ^[A-Za-z0-9._@+-]+$ ]]; then
    echo "'$1' is geen ondertekenaar: verwacht 'naam sleuteltype sleutel', zoals 'release@school.nl ssh-ed25519 AAAA…' (de naam zonder spaties of aanhalingstekens)" >&2
    return 1
  fi
  if [[ ! "$type" =~ ^($signer_key_types)$ || ! "$base64" =~ ^[A-Za-z0-9+/]+={0,2}$ ]] ||
    ! signer_fingerprint=$(printf '%s %s\n' "$type" "$base64" | ssh-keygen -l -E sha256 -f - 2>/dev/null | awk '{ print $2 }') ||
    [[ -z "$signer_fingerprint" ]]; then
    echo "'$1' bevat geen publieke sleutel die ssh-keygen leest (na de naam: sleuteltype en sleutel, zoals in een .pub-bestand)" >&2
    return 1
  fi
  signer_principal=$principal
  signer_key="$type $base64"
}

# signer_entry: the allowed_signers line of the parsed signer, for release signatures only.
signer_entry() { printf '%s namespaces="%s" %s\n' "$signer_principal" "$release_namespace" "$signer_key"; }

# signers_in <file>: '<principal> <fingerprint>' per signer line (comments and blank lines skipped;
# lines written by hand may carry other options).
signers_in() {
  local line principal key
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    principal=${line%%[[:space:]]*}
    key=$(grep -oE "($signer_key_types) [A-Za-z0-9+/]+={0,2}" <<<"$line" | head -n 1) || true
    printf '%s %s\n' "$principal" "$(printf '%s\n' "$key" | ssh-keygen -l -E sha256 -f - 2>/dev/null | awk '{ print $2 }')"
  done <"$1"
}

# signature_key <.sig file>: the public key inside an OpenSSH signature, '<type> <base64>' (the
# format of PROTOCOL.sshsig: "SSHSIG", uint32 version, string public key, …), for a sysadmin to
# compare its fingerprint with the school's.
signature_key() {
  local hex length key type_length
  hex=$(sed '/^-----/d' "$1" | base64 -d 2>/dev/null | od -An -v -tx1 | tr -d ' \n') || return 1
  [[ "${hex:0:12}" == 535348534947 && ${#hex} -ge 28 ]] || return 1
  length=$((16#${hex:20:8}))
  key=${hex:28:$((length * 2))}
  type_length=$((16#${key:0:8}))
  printf '%s %s\n' "$(hex_bytes "${key:8:$((type_length * 2))}")" "$(hex_bytes "$key" | base64 -w0)"
}

# hex_bytes <hex>: the bytes (NUL too: bash's printf writes \x00).
hex_bytes() {
  local escaped
  # shellcheck disable=SC2001 # install.sh turns patsub_replacement off, so no & in ${//}
  escaped=$(sed 's/../\\x&/g' <<<"$1")
  # shellcheck disable=SC2059 # the format is the bytes, as \x escapes
  printf "$escaped"
}

# confirm_signature_key <.sig file>: on a terminal, shows the fingerprint of the key that made the
# signature and asks whether it is the school's release key; sets signer (as --signer would be)
# when the answer is ja.
confirm_signature_key() {
  local key answer
  [[ -t 0 ]] || return 1
  key=$(signature_key "$1") && parse_signer "release-signer $key" 2>/dev/null || return 1
  printf '\n   De bundel is ondertekend met de sleutel %s (%s).\n' "$signer_fingerprint" "${key%% *}"
  printf '   Vergelijk die vingerafdruk met de releasesleutel die de school publiceert (niet met iets uit deze bundel).\n'
  printf '   Is dit de releasesleutel van de school? Typ ja om hem vast te leggen in %s: ' "$signers_path"
  read -r answer || answer=""
  [[ "$answer" == ja ]] || return 1
  # shellcheck disable=SC2034 # install.sh's --signer
  signer="release-signer $key"
}

# need_ssh_keygen: the check needs OpenSSH's ssh-keygen (Debian's openssh-client).
need_ssh_keygen() {
  command -v ssh-keygen >/dev/null || refuse "$exit_not_verified" "ssh-keygen ontbreekt, dus de handtekening kan niet gecontroleerd worden: apt-get install openssh-client"
}

# verify_release <tarball> <signers file> <how the signers file is named in messages> [<how the
# tarball is named in them>]: the tarball's checksum and signature, made by one of the signers in
# the release namespace, or a refusal (exit 3). Sets verified_by ('<principal> (<fingerprint>)').
verify_release() {
  local tarball=$1 signers=$2 signers_name=$3 shown=${4:-$1} expected named actual principals principal fingerprint
  need_ssh_keygen
  [[ -f "$tarball" ]] || refuse "$exit_not_verified" "$shown bestaat niet"
  [[ -f "$tarball.sig" ]] || refuse "$exit_not_verified" "niet ondertekend: $shown.sig ontbreekt. Installeer alleen een release die de school ondertekende (docs/operations.md, \"Release bundle\")."
  [[ -f "$tarball.sha256" ]] || refuse "$exit_not_verified" "geen controlegetal: $shown.sha256 ontbreekt"
  read -r expected named _ <"$tarball.sha256" || true
  [[ "$expected" =~ ^[0-9a-f]{64}$ && "${named#\*}" == "$(basename "$tarball")" ]] ||
    refuse "$exit_not_verified" "$shown.sha256 is geen controlegetal van $(basename "$shown")"
  actual=$(sha256sum <"$tarball")
  [[ "${actual%% *}" == "$expected" ]] ||
    refuse "$exit_not_verified" "het controlegetal klopt niet: $shown is niet de tarball van $shown.sha256 (onvolledig gedownload of veranderd)"
  [[ -s "$signers" ]] || refuse "$exit_not_verified" "geen releaseondertekenaar in $signers_name"
  principals=$(ssh-keygen -Y find-principals -s "$tarball.sig" -f "$signers" 2>/dev/null) ||
    refuse "$exit_not_verified" "niet ondertekend door een releaseondertekenaar uit $signers_name: $shown.sig is met een andere sleutel gemaakt (of is geen handtekening). Een nieuwe sleutel van de school: devplein release-signers add (docs/operations.md)."
  for principal in $principals; do
    if ssh-keygen -Y verify -f "$signers" -I "$principal" -n "$release_namespace" -s "$tarball.sig" <"$tarball" >/dev/null 2>&1; then
      fingerprint=$(signers_in "$signers" | awk -v p="$principal" '$1 == p { print $2; exit }')
      # shellcheck disable=SC2034 # read by the sourcing script
      verified_by="$principal ($fingerprint)"
      return 0
    fi
  done
  # Why not: a signature by a known key, in another namespace, or over other bytes.
  if [[ "$(ssh-keygen -Y check-novalidate -n "$release_namespace" -s "$tarball.sig" <"$tarball" 2>&1)" == *namespace* ]]; then
    refuse "$exit_not_verified" "geen releasehandtekening (naamruimte $release_namespace): $shown.sig is met de sleutel van $principal voor iets anders gemaakt"
  fi
  refuse "$exit_not_verified" "de handtekening klopt niet bij deze tarball: $shown is na het ondertekenen veranderd (ook al klopt zijn .sha256)"
}

# verify_unpacked <tarball> <bundle folder>: the unpacked folder is exactly the tarball's tree
# (contents, modes, symlinks, no file more; who unpacked it and when do not count), or a refusal.
verify_unpacked() {
  local tarball=$1 bundle=$2 parent top differences extra
  parent=$(dirname "$bundle")
  top=$(basename "$bundle")
  differences=$(tar --compare -zf "$tarball" -C "$parent" 2>&1 | grep -vE ': (Uid|Gid|Mod time) differs$') || true
  extra=$(comm -13 <(tar -tzf "$tarball" | sed 's|/$||' | LC_ALL=C sort -u) <(cd "$parent" && find "$top" | LC_ALL=C sort -u) | sed 's/$/: staat niet in de tarball/') || true
  if [[ -n "$differences$extra" ]]; then
    refuse "$exit_not_verified" "$bundle wijkt af van de ondertekende tarball $tarball (pak hem opnieuw uit, als root: tar -xzf $(basename "$tarball")):
$(printf '%s\n%s\n' "$differences" "$extra" | sed '/^$/d' | head -n 20 | sed 's/^/  /')"
  fi
}

# audit_signers <tool> <toegevoegd|verwijderd> <principal> <fingerprint>: who changed which
# signer when, in the journal and in an append-only log beside the others.
audit_signers() {
  local who=${SUDO_USER:-$(id -un)} line
  line="$who $1 $2 $3 $4"
  install -d -m 0750 "$R/var/log/devplein"
  (umask 027 && printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$line" >>"$R$signers_log")
  logger -p auth.notice -t devplein "release-signers: $line" 2>/dev/null || true
}

# write_signers <file with the new content>: /etc/devplein/release-signers replaced in one rename
# (root's, readable by all: public keys).
write_signers() {
  mkdir -p "$(dirname "$R$signers_path")"
  install -m 0644 -o 0 -g 0 "$1" "$R$signers_path.new"
  mv -f "$R$signers_path.new" "$R$signers_path"
}

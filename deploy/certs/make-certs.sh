#!/usr/bin/env bash
# Makes the certificates of the agent link (gRPC with mutual TLS) with openssl:
#   ca.pem, ca-key.pem                      the link's own CA (reused when it exists in <outdir>)
#   agent.pem, agent-key.pem                 the host agent's server certificate
#                                            (SAN DNS:localhost, IP:127.0.0.1 and [agent-hostname])
#   control-plane.pem, control-plane-key.pem the control plane's client certificate
#                                            (CN devplein-control-plane)
# Usage: deploy/certs/make-certs.sh <outdir> [agent-hostname]
# Keys are EC P-256 and readable by the owner only (0600). See README.md beside this script.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || -z "$1" ]]; then
  echo "usage: $0 <outdir> [agent-hostname]" >&2
  exit 2
fi
outdir=$1
agent_host=${2:-}
if [[ -n "$agent_host" && ! "$agent_host" =~ ^[A-Za-z0-9.:-]+$ ]]; then
  echo "make-certs: invalid agent hostname: $agent_host" >&2
  exit 2
fi
command -v openssl >/dev/null || { echo "make-certs: openssl not found (apt-get install openssl)" >&2; exit 1; }

mkdir -p "$outdir"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ca_days=3650
leaf_days=825

serial() { echo "0x$(openssl rand -hex 16)"; }

# The CA: reused when present so renewing the leaf certificates keeps every peer's trust.
if [[ -f "$outdir/ca.pem" && -f "$outdir/ca-key.pem" ]]; then
  echo "make-certs: reusing CA in $outdir" >&2
else
  cat >"$work/ca.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = devplein agent link CA
[v3_ca]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
CNF
  openssl req -x509 -new -config "$work/ca.cnf" -extensions v3_ca \
    -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$outdir/ca-key.pem" -out "$outdir/ca.pem" -days "$ca_days" -set_serial "$(serial)" 2>/dev/null
fi

# leaf <name> <common name> <extensions>
leaf() {
  local name=$1 cn=$2 extensions=$3
  printf '%s\n' "$extensions" >"$work/$name.ext"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$outdir/$name-key.pem" -subj "/CN=$cn" -out "$work/$name.csr" 2>/dev/null
  openssl x509 -req -in "$work/$name.csr" -CA "$outdir/ca.pem" -CAkey "$outdir/ca-key.pem" \
    -set_serial "$(serial)" -days "$leaf_days" -extfile "$work/$name.ext" -out "$outdir/$name.pem" 2>/dev/null
}

san="DNS:localhost,IP:127.0.0.1"
if [[ -n "$agent_host" && "$agent_host" != localhost && "$agent_host" != 127.0.0.1 ]]; then
  if [[ "$agent_host" =~ ^[0-9.]+$ || "$agent_host" == *:* ]]; then san="$san,IP:$agent_host"; else san="$san,DNS:$agent_host"; fi
fi

leaf agent devplein-agent "basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $san"

leaf control-plane devplein-control-plane "basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth"

chmod 600 "$outdir"/*-key.pem
chmod 644 "$outdir/ca.pem" "$outdir/agent.pem" "$outdir/control-plane.pem"
echo "make-certs: wrote $outdir/{ca,agent,control-plane}.pem and their keys (agent SAN $san)" >&2

#!/bin/sh
# bin/devplein of a release bundle (scripts/release.ts copies this file): runs a part of the
# bundle with the node the bundle carries. Works through a symlink (/usr/local/bin/devplein).
set -eu
bundle=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
node="$bundle/node/bin/node"

usage() {
  cat <<USAGE
Gebruik: devplein <opdracht> [argumenten]
  control-plane     start de control plane (instellingen uit de omgeving, zie deploy/systemd/devplein-control-plane.env)
  agent             start de host agent (zie deploy/systemd/devplein-agent.env)
  agent invite|revoke|list …  ontwikkelservers koppelen (op de control plane, met diens instellingen)
  agent renew [--restart]      vernieuwt het certificaat van deze ontwikkelserver (vanaf 30 dagen voor het einde)
  browser-server    start de screenshotbrowser van de agent (deploy/systemd/devplein-browser.service)
  git-runner        start de git-runner van de agent voor git-deploys (deploy/systemd/devplein-git.service)
  soketi            start soketi, de realtime-server (SOKETI_*-instellingen uit de omgeving)
  admin …           beheerders: devplein admin create --email <e-mailadres>, devplein admin list
  migrate           voert de databasemigraties uit (--rollback draait ze allemaal terug)
  backup …          maakt een versleutelde backup (--role control-plane|agent, --keep N; docs/operations.md)
  restore BACKUP    zet een backup terug op een lege server (--force vervangt bestaande gegevens)
  config check [control-plane|agent|soketi] [--file F]  controleert de instellingen (zonder rol: elke rol met een env-bestand in /etc/devplein)
  upgrade TARBALL   naar een nieuwere release: controleert eerst .sha256 en .sig ernaast tegen /etc/devplein/release-signers
  release-signers list|add|remove …  de releaseondertekenaars van de school (docs/operations.md, "Release signers")
  version           toont de versie van deze bundel
USAGE
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  control-plane)
    # The built web app of this bundle, unless the environment names another.
    WEB_DIST=${WEB_DIST:-$bundle/web/dist}
    export WEB_DIST
    exec "$node" "$bundle/control-plane/dist/main.js" "$@" ;;
  agent)
    case "${1:-}" in
      invite | revoke | list) exec "$node" "$bundle/control-plane/dist/cli/agent-cli.js" "$@" ;;
      renew) exec "$node" "$bundle/host-agent/dist/bin/cert-renew.js" "$@" ;;
      *) exec "$node" "$bundle/host-agent/dist/bin/agent.js" "$@" ;;
    esac ;;
  browser-server) exec "$node" "$bundle/host-agent/dist/bin/browser-server.js" "$@" ;;
  git-runner) exec "$node" "$bundle/host-agent/dist/bin/git-runner.js" "$@" ;;
  admin) exec "$node" "$bundle/control-plane/dist/cli/admin-cli.js" "$@" ;;
  migrate) exec "$node" "$bundle/control-plane/dist/db/migrate-cli.js" "$@" ;;
  backup | restore)
    DEVPLEIN_VERSION=$(cat "$bundle/VERSION")
    export DEVPLEIN_VERSION
    exec "$node" "$bundle/control-plane/dist/cli/backup-cli.js" "$command" "$@" ;;
  # Each role's settings are checked by its own code: the agent's by the agent's schema, the
  # control plane's and soketi's by the control plane's. Without a role: every role installed here.
  config)
    [ "${1:-}" = check ] || { usage >&2; exit 2; }
    shift
    case "${1:-}" in
      '') roles=$(for role in control-plane agent soketi; do if [ -e "${DEVPLEIN_CONFIG_DIR:-/etc/devplein}/$role.env" ]; then echo "$role"; fi; done) ;;
      -*) echo "devplein config check: noem de rol vóór $1 (control-plane, agent of soketi)" >&2; exit 2 ;;
      *) roles=$1; shift ;;
    esac
    [ -n "$roles" ] || { echo "devplein config check: geen instellingen gevonden (/etc/devplein/control-plane.env, agent.env, soketi.env)" >&2; exit 1; }
    status=0
    for role in $roles; do
      case "$role" in agent) check=host-agent/dist/bin/config-check.js ;; *) check=control-plane/dist/cli/config-check.js ;; esac
      "$node" "$bundle/$check" "$role" "$@" || status=$?
    done
    exit "$status" ;;
  # This bundle's own check of the new one (deploy/verified-upgrade.sh), never the new bundle's.
  upgrade) exec bash "$bundle/deploy/verified-upgrade.sh" "$@" ;;
  release-signers) exec bash "$bundle/deploy/release-signers.sh" "$@" ;;
  # soketi has its own node (Node 20: its uWebSockets.js build has no binary for Node 24).
  soketi) exec "$bundle/soketi/node/bin/node" "$bundle/soketi/node_modules/@soketi/soketi/bin/server.js" start "$@" ;;
  version | --version) cat "$bundle/VERSION" ;;
  help | --help | -h) usage ;;
  *) usage >&2; exit 2 ;;
esac

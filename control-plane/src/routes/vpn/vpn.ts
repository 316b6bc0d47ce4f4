import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { createVpnConfig, ownVpnConfig, vpnConfigFile, vpnConfigQr } from '@devplein/contract/http/vpn';
import { notFound } from '../../errors.ts';
import { ownsVpnConfig } from '../../policies/vpn-policy.ts';
import { handle } from '../handle.ts';
import { createUserVpn, type VpnCommandDeps } from '../../commands/create-user-vpn.ts';
import { loadVpnConfigByIdentifier, loadVpnConfigOfUser, type StoredVpnConfig, vpnConfigText } from '../../queries/vpn.ts';
import { VPN_CONFIG_FILE_NAME, vpnConfigQrSvg } from '../../lib/vpn-config-file.ts';
import { presentVpnConfig, presentVpnIdentifier } from '../../presenters/present-vpn-config.ts';

const CONFIG_MISSING = 'Deze VPN-configuratie bestaat niet.';

/** The file holds a private key: never cached by the browser or a proxy. */
const noStore = (ctx: AppContext): void => {
  ctx.set('Cache-Control', 'no-store');
};

/**
 * The developer's WireGuard configuration (spec §7): GET /api/vpn (`{identifier, address,
 * createdAt}` or null), POST /api/vpn (`{identifier}`; a second call returns the same one),
 * GET /api/vpn/{identifier} (the `.conf` download, owner only; others 404) and, beyond the spec,
 * GET /api/vpn/qr (the same file as an SVG QR code for a phone).
 */
export function vpnRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'secrets' | 'logger' | 'services'>): AppRouter {
  const commandDeps: VpnCommandDeps = {
    knex: deps.knex,
    agents: deps.agents,
    secrets: deps.secrets,
    logger: deps.logger.child({ component: 'vpn' }),
    locks: deps.services.locks,
  };
  const router: AppRouter = new Router();

  // Developers only (spec §6; admins who are not developers are refused like students): the
  // endpoints' declared access (contract/src/http/vpn.ts).
  handle(router, ownVpnConfig, async (_ctx, { caller }) => {
    const config = await loadVpnConfigOfUser(deps.knex, caller.id);
    return config ? presentVpnConfig(config) : null;
  });

  handle(router, createVpnConfig, async (ctx, { caller }) => presentVpnIdentifier(await createUserVpn(commandDeps, caller.id, ctx.state.requestId)));

  // Before /api/vpn/:identifier (an identifier is a UUID, never 'qr', but the order makes it plain).
  handle(router, vpnConfigQr, async (ctx, { caller }) => {
    const config = await loadVpnConfigOfUser(deps.knex, caller.id);
    if (!config) throw notFound(CONFIG_MISSING);
    const svg = await vpnConfigQrSvg(await vpnConfigText(commandDeps, config, ctx.state.requestId));
    noStore(ctx);
    ctx.type = 'image/svg+xml';
    ctx.body = svg;
  });

  handle(router, vpnConfigFile, async (ctx, { caller, params: { identifier } }) => {
    const config: StoredVpnConfig | undefined = await loadVpnConfigByIdentifier(deps.knex, identifier);
    if (!config || !ownsVpnConfig(caller, config)) throw notFound(CONFIG_MISSING);
    const text = await vpnConfigText(commandDeps, config, ctx.state.requestId);
    noStore(ctx);
    ctx.attachment(VPN_CONFIG_FILE_NAME);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = text;
  });

  return router;
}

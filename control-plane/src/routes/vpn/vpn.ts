import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import type { CurrentUser } from '../../auth/current-user.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayUseVpn, ownsVpnConfig } from '../../policies/vpn-policy.ts';
import { createUserVpn, type VpnCommandDeps } from '../../commands/create-user-vpn.ts';
import { loadVpnConfigByIdentifier, loadVpnConfigOfUser, type StoredVpnConfig, vpnConfigText } from '../../queries/vpn.ts';
import { VPN_CONFIG_FILE_NAME, vpnConfigQrSvg } from '../../lib/vpn-config-file.ts';
import { presentVpnConfig, presentVpnIdentifier } from '../../presenters/present-vpn-config.ts';

const CONFIG_MISSING = 'Deze VPN-configuratie bestaat niet.';

/** The signed-in developer, or 401/403 (spec §6: the VPN is for developers). */
function developer(ctx: AppContext): CurrentUser {
  const user = activeUser(ctx);
  if (!mayUseVpn(user)) throw forbidden('De VPN is alleen voor ontwikkelaars.');
  return user;
}

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
export function vpnRoutes(deps: Pick<AppDeps, 'knex' | 'agents' | 'secrets' | 'logger'>): AppRouter {
  const commandDeps: VpnCommandDeps = {
    knex: deps.knex,
    agents: deps.agents,
    secrets: deps.secrets,
    logger: deps.logger.child({ component: 'vpn' }),
  };
  const router: AppRouter = new Router();

  router.get('/api/vpn', async (ctx) => {
    const user = developer(ctx);
    const config = await loadVpnConfigOfUser(deps.knex, user.id);
    // koa answers 204 for a null body; the API promises 200 with JSON null.
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(config ? presentVpnConfig(config) : null);
  });

  router.post('/api/vpn', async (ctx) => {
    const user = developer(ctx);
    ctx.body = presentVpnIdentifier(await createUserVpn(commandDeps, user.id, ctx.state.requestId));
  });

  // Before /api/vpn/:identifier (an identifier is a UUID, never 'qr', but the order makes it plain).
  router.get('/api/vpn/qr', async (ctx) => {
    const user = developer(ctx);
    const config = await loadVpnConfigOfUser(deps.knex, user.id);
    if (!config) throw notFound(CONFIG_MISSING);
    const svg = await vpnConfigQrSvg(await vpnConfigText(commandDeps, config, ctx.state.requestId));
    noStore(ctx);
    ctx.type = 'image/svg+xml';
    ctx.body = svg;
  });

  router.get('/api/vpn/:identifier', async (ctx) => {
    const user = developer(ctx);
    const identifier = (ctx.params as { identifier?: string }).identifier ?? '';
    const config: StoredVpnConfig | undefined = await loadVpnConfigByIdentifier(deps.knex, identifier);
    if (!config || !ownsVpnConfig(user, config)) throw notFound(CONFIG_MISSING);
    const text = await vpnConfigText(commandDeps, config, ctx.state.requestId);
    noStore(ctx);
    ctx.attachment(VPN_CONFIG_FILE_NAME);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = text;
  });

  return router;
}

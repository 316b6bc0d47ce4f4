import type { Knex } from 'knex';
import Router from '@koa/router';
import mount from 'koa-mount';
import { Provider, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { AppMiddleware, AppState } from '../http-context.ts';
import type Koa from 'koa';
import { DEV_IDP_PATH } from './dev-identity-provider-path.ts';

export { DEV_IDP_PATH };
/** The script that submits the logout confirmation at once (a file: the CSP allows no inline script). */
const END_SESSION_SCRIPT_PATH = `${DEV_IDP_PATH}/assets/end-session.js`;
const END_SESSION_SCRIPT = "document.getElementById('end-session')?.click();\n";

export interface DevIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Koa middleware: the provider itself under /dev-idp plus its sign-in interaction pages. */
  middleware: AppMiddleware;
}

interface AccountRow {
  email: string;
  name: string;
}

/**
 * Accounts of the development provider whose id_token carries a `groups` claim, as a school's
 * provider would (OIDC_GROUPS_CLAIM=groups with deploy/oidc/group-mapping.example.json). They
 * sign in whether or not the database knows them: a first sign-in makes the account, not yet
 * activated, as it would for a new person at the school.
 */
export const DEV_GROUP_ACCOUNTS: ReadonlyArray<AccountRow & { groups: readonly string[] }> = [
  // The example file's ids: klas SD25, team Webshop, Docenten (admin); klas SD24.
  { email: 'gijs.groepen@devplein.test', name: 'Gijs Groepen', groups: ['c2e5b8f1-4a7d-4e3c-8b6a-9d0f1e2a3b4c', '5b7e9d1f-2c4a-4f6e-8a0b-3d5f7e9a1c2b', '3f6c2a8e-5b1d-4c7e-9a2f-8d4b6e1c0a93'] },
  { email: 'greet.groepen@devplein.test', name: 'Greet Groepen', groups: ['8a1d4f2c-7e3b-4b6a-9c5d-2f0e1a3b4c5d'] },
];

const groupAccountOf = (email: string) => DEV_GROUP_ACCOUNTS.find((account) => account.email === email.toLowerCase());

async function findAccountByEmail(knex: Knex, email: string): Promise<AccountRow | undefined> {
  const row = await knex('users').select('email', 'name').whereRaw('lower(email) = lower(?)', [email]).first<AccountRow | undefined>();
  if (row) return row;
  const account = groupAccountOf(email);
  return account && { email: account.email, name: account.name };
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const PAGE_STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1d2b36}
button{display:block;width:100%;text-align:left;margin:.4rem 0;padding:.7rem 1rem;border:1px solid #c9d6df;border-radius:.5rem;background:#fff;font-size:1rem;cursor:pointer}
button:hover{background:#eef5fb}small{color:#5b6b78;display:block}`;

/** A page of the development provider (Dutch, like the app). */
function page(title: string, body: string): string {
  return `<!doctype html><html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style></head>
<body>${body}</body></html>`;
}

/**
 * A development-only OpenID Connect provider that knows the accounts in the database (the seeded
 * demo accounts). It stands in for the school's identity provider so a new checkout can sign in
 * through the real authorization-code + PKCE flow. `login_hint` signs that account in without a
 * form, which tests and scripts use; otherwise (and always with prompt=login) it shows its account
 * picker. Its end_session_endpoint (RP-initiated logout) signs out at once, without the
 * confirmation click of oidc-provider's default page; `endSession: false` leaves it out of the
 * discovery document, like a provider without one. It refuses to exist when NODE_ENV is
 * production or APP_URL is not a loopback address (config.ts refuses both first).
 */
export function createDevIdentityProvider(options: {
  appUrl: string;
  providerName: string;
  knex: Knex;
  logger: Logger;
  nodeEnv: string;
  /** The host app's cookie keys: mounted, the provider sets cookies through the host app's context. */
  cookieKeys: string[];
  /** Publish end_session_endpoint (default true); false only to test the prompt=login fallback. */
  endSession?: boolean;
}): DevIdentityProvider {
  if (options.nodeEnv === 'production') {
    throw new Error('The development identity provider never runs in production: configure OIDC_ISSUER.');
  }
  if (!/^https?:\/\/(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/.test(options.appUrl)) {
    throw new Error(`The development identity provider runs only on a loopback APP_URL, not ${options.appUrl}: configure OIDC_ISSUER.`);
  }
  const issuer = `${options.appUrl}${DEV_IDP_PATH}`;
  const clientId = 'devplein-dev';
  const clientSecret = 'devplein-dev-secret';
  const { knex } = options;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${options.appUrl}/auth/${options.providerName}/callback`],
        post_logout_redirect_uris: [`${options.appUrl}/`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
    // The school's provider may not put claims in the id_token; ours does, which keeps the flow simple.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: options.endSession ?? true,
        // oidc-provider's page asks "Do you want to sign-out?"; ours confirms by itself, through a
        // script file because the app's CSP allows no inline script. The button is the fallback.
        logoutSource: async (ctx, form) => {
          ctx.type = 'html';
          ctx.body = page(
            'Uitloggen',
            `<h1>Uitloggen</h1><p>Je wordt uitgelogd bij de ontwikkel-inlog.</p>${form}
<button id="end-session" type="submit" form="op.logoutForm" name="logout" value="yes">Uitloggen</button>
<script src="${END_SESSION_SCRIPT_PATH}"></script>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.body = page('Uitgelogd', `<h1>Uitgelogd</h1><p>Je bent uitgelogd.</p><p><a href="${escapeHtml(options.appUrl)}/">Naar devplein</a></p>`);
        },
      },
    },
    cookies: { keys: options.cookieKeys },
    interactions: { url: (_ctx, interaction) => `${DEV_IDP_PATH}/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const account = await findAccountByEmail(knex, sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => {
          const groups = groupAccountOf(account.email)?.groups;
          return { sub, email: account.email, email_verified: true, name: account.name, ...(groups ? { groups: [...groups] } : {}) };
        },
      };
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Fout</title><h1>Inloggen mislukt</h1><pre>${escapeHtml(
        JSON.stringify(out, null, 2),
      )}</pre>`;
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.proxy = true;
  provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) =>
    options.logger.error({ err: error }, 'development identity provider error'),
  );

  /** Finishes the login (and consent) for an account, as a real user would by submitting the form. */
  async function finish(ctx: Koa.Context, accountId: string): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const grant = new provider.Grant({ accountId, clientId });
    const scope = typeof details.params.scope === 'string' ? details.params.scope : 'openid';
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    ctx.respond = false;
  }

  const router = new Router<AppState>({ prefix: `${DEV_IDP_PATH}/interaction` });
  router.get('/:uid', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : undefined;
    if (hint) {
      const account = await findAccountByEmail(knex, hint);
      if (account) return finish(ctx as unknown as Koa.Context, account.email.toLowerCase());
    }
    const accounts = await knex('users')
      .select('email', 'name')
      .orderBy('id')
      .limit(20);
    const known = new Set((accounts as AccountRow[]).map((a) => a.email.toLowerCase()));
    const withGroups = DEV_GROUP_ACCOUNTS.filter((a) => !known.has(a.email)).map(({ email, name }) => ({ email, name }));
    const buttons = [...(accounts as AccountRow[]), ...withGroups]
      .map(
        (a) =>
          `<button name="email" value="${escapeHtml(a.email)}">${escapeHtml(a.name)} <small>${escapeHtml(a.email)}</small></button>`,
      )
      .join('\n');
    ctx.type = 'html';
    ctx.body = page(
      'Ontwikkel-inlog',
      `<h1>Ontwikkel-inlog</h1><p>Dit is de ingebouwde inlogdienst voor ontwikkeling. Kies een demo-account.</p>
<form method="post" action="${DEV_IDP_PATH}/interaction/${escapeHtml(String(ctx.params.uid))}">${buttons}</form>`,
    );
  });
  router.post('/:uid', async (ctx) => {
    const body = (ctx.request as { body?: Record<string, unknown> }).body ?? {};
    const email = typeof body.email === 'string' ? body.email : '';
    const account = await findAccountByEmail(knex, email);
    if (!account) {
      ctx.status = 400;
      ctx.body = 'Onbekend account.';
      return;
    }
    await finish(ctx as unknown as Koa.Context, account.email.toLowerCase());
  });

  const providerApp = mount(DEV_IDP_PATH, provider) as unknown as AppMiddleware;
  const routes = router.routes() as unknown as AppMiddleware;
  return {
    issuer,
    clientId,
    clientSecret,
    middleware: async (ctx, next) => {
      if (!ctx.path.startsWith(DEV_IDP_PATH)) return next();
      if (ctx.path.startsWith(`${DEV_IDP_PATH}/interaction/`)) return routes(ctx, next);
      if (ctx.path === END_SESSION_SCRIPT_PATH && ctx.method === 'GET') {
        ctx.type = 'text/javascript';
        ctx.body = END_SESSION_SCRIPT;
        return;
      }
      return providerApp(ctx, next);
    },
  };
}

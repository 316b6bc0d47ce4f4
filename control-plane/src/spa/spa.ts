import { readFile } from 'node:fs/promises';
import path from 'node:path';
import serve from 'koa-static';
import type { AppContext, AppMiddleware } from '../app-context.ts';
import { DEFAULT_DB_ADMIN_URL, DEFAULT_STUDENT_DB_HOST, DEFAULT_STUDENT_DB_PORT } from '../config.ts';

export interface PageSettings {
  webDist: string;
  /** The page's CSRF token (auth/csrf.ts: the session's, or a stateless one for anonymous visitors). */
  csrfToken: (ctx: AppContext) => string;
  ssoProvider: string;
  /** The school's dev domain, under which project domains live (the docker form fills it in). */
  siteDomain: string;
  /** Every dev server's site domain: a project domain may lie under any of them (default: siteDomain only). */
  siteDomains?: readonly string[] | (() => readonly string[]);
  realtime: { key: string; host: string; port: number; tls: boolean };
  /**
   * What the databases page shows: the database administration address (DB_ADMIN_URL) and the
   * dev server's internal host and port where MariaDB listens (STUDENT_DB_HOST, STUDENT_DB_PORT).
   * Defaults as in config.ts.
   */
  database?: PageDatabase | (() => PageDatabase);
}

/**
 * Meta tags the page gets even when index.html has no placeholder for them: each is inserted
 * before `</head>` unless the template already carries a tag of that name.
 */
function withMetaTags(html: string, tags: Record<string, string>): string {
  const missing = Object.entries(tags)
    .filter(([name]) => !html.includes(`name="${name}"`))
    .map(([name, content]) => `<meta name="${name}" content="${escapeAttribute(content)}" />`);
  if (missing.length === 0) return html;
  return html.replace('</head>', `${missing.join('')}</head>`);
}

/** Paths the single-page app never answers: they belong to the server. */
const SERVER_PATHS = /^\/(api|auth|broadcasting|dev-idp|session|healthz|logout|misc)(\/|$)/;

const escapeAttribute = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * Serves the built web app: its files as they are (long-cached when hashed), and index.html for
 * every other page path, with the CSRF token and the public settings in meta tags. An anonymous
 * page view writes no session row.
 */
interface PageDatabase {
  adminUrl: string;
  host: string;
  port?: number;
  signon?: boolean;
}

export function singlePageApp(settings: PageSettings): AppMiddleware {
  const indexPath = path.join(settings.webDist, 'index.html');
  let template: Promise<string> | null = null;
  // A function: read per page, so the dev server new students go to may join while this runs.
  const database = (): PageDatabase | undefined => (typeof settings.database === 'function' ? settings.database() : settings.database);
  const files = serve(settings.webDist, {
    index: false,
    setHeaders: (res, filePath) => {
      if (filePath.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    },
  }) as unknown as AppMiddleware;

  return async (ctx, next) => {
    if (SERVER_PATHS.test(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    await files(ctx, async () => undefined);
    if (ctx.body !== undefined && ctx.body !== null) return;
    // A hashed file the build does not have (a tab opened before a deploy asks for its old chunk):
    // 404, so the web app's loader sees the failure; the page in its place would be parsed as code.
    if (ctx.path.startsWith('/assets/')) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = 'Dit bestand bestaat niet (meer).';
      return;
    }
    template ??= readFile(indexPath, 'utf8').catch((error: unknown) => {
      template = null;
      throw error;
    });
    let html: string;
    try {
      html = await template;
    } catch {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'De webapp is nog niet gebouwd: voer `npm run build:web` uit.';
      return;
    }
    const db = database();
    const dbAdminUrl = db?.adminUrl ?? DEFAULT_DB_ADMIN_URL;
    const dbHost = db?.host ?? DEFAULT_STUDENT_DB_HOST;
    const dbPort = db?.port ?? DEFAULT_STUDENT_DB_PORT;
    const values: Record<string, string> = {
      __CSRF_TOKEN__: settings.csrfToken(ctx),
      __SSO_PROVIDER__: settings.ssoProvider,
      __SITE_DOMAIN__: settings.siteDomain,
      __REALTIME_KEY__: settings.realtime.key,
      __REALTIME_HOST__: settings.realtime.host,
      __REALTIME_PORT__: String(settings.realtime.port),
      __REALTIME_TLS__: String(settings.realtime.tls),
      __DB_ADMIN_URL__: dbAdminUrl,
      __DB_HOST__: dbHost,
    };
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    const filled = html.replace(/__[A-Z_]+__/g, (placeholder) =>
      placeholder in values ? escapeAttribute(values[placeholder] ?? '') : placeholder,
    );
    ctx.body = withMetaTags(filled, {
      'db-admin-url': dbAdminUrl,
      'db-host': dbHost,
      'db-port': String(dbPort),
      'db-admin-signon': String(db?.signon ?? false),
      // A function: read per page, so a dev server that joined is offered without a restart.
      'site-domains': ((typeof settings.siteDomains === 'function' ? settings.siteDomains() : settings.siteDomains) ?? [settings.siteDomain]).join(' '),
    });
  };
}

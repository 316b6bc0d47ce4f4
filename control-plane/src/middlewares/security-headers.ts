import helmet from 'koa-helmet';
import type { AppMiddleware } from '../http-context.ts';

/** Where the browser's realtime websocket goes (the page's realtime-* meta tags say the same). */
export interface RealtimeEndpoint {
  host: string;
  port: number;
  tls: boolean;
}

export interface SecurityHeaderSettings {
  /** The app's public address (APP_URL) is https (config.appOnHttps): HSTS and upgrade-insecure-requests. */
  onHttps: boolean;
  realtime: RealtimeEndpoint;
  /**
   * Origins outside this one that a page's form may post to (form-action). Sign-in with the
   * school's provider is a redirect, not a form, so this is normally empty.
   */
  formTargets?: readonly string[];
  /**
   * Path prefix of pages that are not ours and carry inline <style> (the development identity
   * provider's sign-in and logout pages, rendered by oidc-provider): they get style-src
   * 'unsafe-inline', nothing else is loosened. That provider never runs in production.
   */
  inlineStylePrefix?: string;
}

export type CspDirectives = Record<string, string[]>;

/** ws(s)://host:port of the realtime server, with IPv6 addresses in brackets. */
export function realtimeOrigin(realtime: RealtimeEndpoint): string {
  const host = realtime.host.includes(':') && !realtime.host.startsWith('[') ? `[${realtime.host}]` : realtime.host;
  return `${realtime.tls ? 'wss' : 'ws'}://${host}:${realtime.port}`;
}

/**
 * The app's Content-Security-Policy: only its own scripts and styles (the Vite build has no
 * inline script or style; React's style={…} sets CSSOM properties, which CSP allows), images
 * from itself and data: URLs, fetches to itself and the realtime websocket, never framed.
 */
export function appCspDirectives(settings: SecurityHeaderSettings, options: { inlineStyles?: boolean } = {}): CspDirectives {
  const secure = settings.onHttps;
  const directives: CspDirectives = {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': options.inlineStyles ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'", realtimeOrigin(settings.realtime)],
    'object-src': ["'none'"],
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'", ...(settings.formTargets ?? [])],
    'manifest-src': ["'self'"],
    'worker-src': ["'self'"],
  };
  if (secure) directives['upgrade-insecure-requests'] = [];
  return directives;
}

/** The directives as one header value (what a test compares against). */
export function cspHeaderValue(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, values]) => [name, ...values].join(' '))
    .join('; ');
}

function helmetFor(settings: SecurityHeaderSettings, inlineStyles: boolean): AppMiddleware {
  const secure = settings.onHttps;
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: appCspDirectives(settings, { inlineStyles }) },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    originAgentCluster: true,
    referrerPolicy: { policy: 'same-origin' },
    // A year, as browsers' preload lists expect; only over HTTPS (on http it would be ignored at best).
    strictTransportSecurity: secure ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: { allow: false },
    xDownloadOptions: true,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
    xPoweredBy: true,
    xXssProtection: true,
  }) as unknown as AppMiddleware;
}

/**
 * Security headers on every response (API, single-page app, static files, /misc images, sign-in
 * redirects and error answers): the CSP above, nosniff, Referrer-Policy same-origin,
 * X-Frame-Options DENY, Cross-Origin-Opener-Policy same-origin, and HSTS when APP_URL is https.
 * Set before the rest runs, so an error answer carries them too. Pages under
 * `inlineStylePrefix` get the same policy with inline styles allowed.
 */
export function securityHeaders(settings: SecurityHeaderSettings): AppMiddleware {
  const strict = helmetFor(settings, false);
  const prefix = settings.inlineStylePrefix;
  const relaxed = prefix ? helmetFor(settings, true) : strict;
  return (ctx, next) => {
    if (prefix && (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`))) return relaxed(ctx, next);
    return strict(ctx, next);
  };
}

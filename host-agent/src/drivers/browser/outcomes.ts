/**
 * What a failed page load means for the site's owner: the outcome the contract reports and a
 * short Dutch reason the admin screens show as is. Pure, so every branch is unit-tested.
 */

/** The contract's outcomes, without the proto dependency (the service maps them). */
export type CaptureOutcomeKind = 'captured' | 'timeout' | 'unreachable' | 'http-error' | 'browser-error';

export interface ClassifiedFailure {
  outcome: Exclude<CaptureOutcomeKind, 'captured'>;
  reason: string;
}

export interface FailureContext {
  /** The capture's time limit (for the reason text). */
  timeoutMs: number;
  /** host:port of the reverse proxy. */
  proxy: string;
  /** Whether the main document's response headers arrived before the failure. */
  responded: boolean;
  /** The off-domain URL the main frame tried to go to, when the route filter blocked one. */
  blockedNavigation?: string | undefined;
  siteDomain: string;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`.replace('.', ',');

/** The reason for a page that left the dev domain. */
export function redirectedAwayReason(url: string, siteDomain: string): string {
  let host = url;
  try {
    host = new URL(url).host || url;
  } catch {
    // keep the raw text
  }
  return `de site stuurt door naar ${host}, buiten ${siteDomain}; alleen pagina's onder ${siteDomain} worden vastgelegd`;
}

/** Maps a Playwright error of loading the page (goto, load state, screenshot) to an outcome. */
export function classifyLoadError(error: unknown, context: FailureContext): ClassifiedFailure {
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(message)) {
    return {
      outcome: 'timeout',
      reason: context.responded
        ? `de pagina werd niet binnen ${seconds(context.timeoutMs)} geladen`
        : `de site antwoordde niet binnen ${seconds(context.timeoutMs)}`,
    };
  }
  if (/crash/i.test(message)) return { outcome: 'browser-error', reason: 'het tabblad van de browser is gecrasht tijdens het laden' };
  if (/has been closed|Browser closed|browser has disconnected|Target closed/i.test(message)) {
    return { outcome: 'browser-error', reason: 'de browser stopte tijdens het vastleggen' };
  }
  if (/Download is starting/i.test(message)) {
    return { outcome: 'unreachable', reason: 'de site biedt een download aan in plaats van een webpagina' };
  }
  const code = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (code === 'ERR_BLOCKED_BY_CLIENT' && context.blockedNavigation) {
    return { outcome: 'unreachable', reason: redirectedAwayReason(context.blockedNavigation, context.siteDomain) };
  }
  switch (code) {
    case 'ERR_PROXY_CONNECTION_FAILED':
    case 'ERR_TUNNEL_CONNECTION_FAILED':
      return { outcome: 'unreachable', reason: `de reverse proxy (${context.proxy}) is niet bereikbaar` };
    case 'ERR_EMPTY_RESPONSE':
    case 'ERR_CONNECTION_RESET':
    case 'ERR_CONNECTION_CLOSED':
    case 'ERR_CONNECTION_REFUSED':
    case 'ERR_CONNECTION_FAILED':
    case 'ERR_INCOMPLETE_CHUNKED_ENCODING':
      return { outcome: 'unreachable', reason: `de site verbrak de verbinding (${code})` };
    case 'ERR_TOO_MANY_REDIRECTS':
      return { outcome: 'unreachable', reason: 'de site stuurt eindeloos door (te veel redirects)' };
    case 'ERR_TIMED_OUT':
      return { outcome: 'timeout', reason: `de site antwoordde niet binnen ${seconds(context.timeoutMs)}` };
    case undefined:
      return { outcome: 'browser-error', reason: `de browser kon de pagina niet laden: ${message.split('\n')[0]?.slice(0, 200)}` };
    default:
      return { outcome: 'unreachable', reason: `de pagina kon niet geladen worden (${code})` };
  }
}

/**
 * A main document status the proxy itself produced rather than the site: Caddy's catch-all 404
 * (no route for the domain) and a bodyless 502/503/504 (the container is not answering). These
 * mean "nothing to see", not "the site shows an error page".
 */
export function classifyProxyAnswer(status: number, body: string, catchAllBody: string): ClassifiedFailure | undefined {
  if (status === 404 && body.trim() === catchAllBody) {
    return { outcome: 'unreachable', reason: 'de reverse proxy kent dit domein niet (geen draaiende container)' };
  }
  if ((status === 502 || status === 503 || status === 504) && body.trim() === '') {
    return { outcome: 'unreachable', reason: `de container van de site antwoordt niet (proxy: HTTP ${status})` };
  }
  return undefined;
}

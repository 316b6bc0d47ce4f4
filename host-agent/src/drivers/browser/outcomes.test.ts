import { describe, expect, it } from 'vitest';
import { classifyLoadError, classifyProxyAnswer } from './outcomes.ts';

const context = { timeoutMs: 15_000, proxy: '127.0.0.1:80', responded: false, siteDomain: 'dev.test' };

function timeoutError(): Error {
  const error = new Error('page.goto: Timeout 15000ms exceeded.');
  error.name = 'TimeoutError';
  return error;
}

describe('classifyLoadError', () => {
  it('tells a silent site from a page that keeps loading', () => {
    expect(classifyLoadError(timeoutError(), context)).toEqual({ outcome: 'timeout', reason: 'de site antwoordde niet binnen 15 s' });
    expect(classifyLoadError(timeoutError(), { ...context, responded: true, timeoutMs: 2_500 })).toEqual({
      outcome: 'timeout',
      reason: 'de pagina werd niet binnen 2,5 s geladen',
    });
  });

  it('maps network errors', () => {
    const net = (code: string) => classifyLoadError(new Error(`page.goto: net::${code} at http://a.dev.test/`), context);
    expect(net('ERR_PROXY_CONNECTION_FAILED')).toEqual({ outcome: 'unreachable', reason: 'de reverse proxy (127.0.0.1:80) is niet bereikbaar' });
    expect(net('ERR_EMPTY_RESPONSE').outcome).toBe('unreachable');
    expect(net('ERR_TOO_MANY_REDIRECTS').reason).toContain('redirects');
    expect(net('ERR_SOMETHING_NEW')).toEqual({ outcome: 'unreachable', reason: 'de pagina kon niet geladen worden (ERR_SOMETHING_NEW)' });
  });

  it('names the outside host of a blocked navigation', () => {
    const failure = classifyLoadError(new Error('net::ERR_BLOCKED_BY_CLIENT'), { ...context, blockedNavigation: 'http://example.org/login' });
    expect(failure.outcome).toBe('unreachable');
    expect(failure.reason).toContain('example.org');
    expect(failure.reason).toContain('buiten dev.test');
  });

  it('reports crashes and a closed browser as browser errors', () => {
    expect(classifyLoadError(new Error('page.goto: Page crashed'), context).outcome).toBe('browser-error');
    expect(classifyLoadError(new Error('Target page, context or browser has been closed'), context).outcome).toBe('browser-error');
    expect(classifyLoadError(new Error('something odd'), context).outcome).toBe('browser-error');
  });
});

describe('classifyProxyAnswer', () => {
  it('recognises the proxy’s own answers only', () => {
    expect(classifyProxyAnswer(404, 'Deze website bestaat niet (meer).', 'Deze website bestaat niet (meer).')?.outcome).toBe('unreachable');
    expect(classifyProxyAnswer(502, '', 'x')?.reason).toContain('HTTP 502');
    expect(classifyProxyAnswer(502, '<h1>Bad gateway from PHP</h1>', 'x')).toBeUndefined();
    expect(classifyProxyAnswer(404, '<h1>Not found</h1>', 'x')).toBeUndefined();
    expect(classifyProxyAnswer(500, '', 'x')).toBeUndefined();
  });
});

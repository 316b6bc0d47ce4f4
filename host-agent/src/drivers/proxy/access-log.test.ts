import { describe, expect, it } from 'vitest';
import { SCREENSHOT_HEADER, accessLoggerPath, normaliseHost, parseAccessLine, withAccessLog, withServerLogs } from './access-log.ts';

const loggerPath = accessLoggerPath('srv1');
const token = 'f00d';

/** An access log entry as Caddy 2.6 writes it (JSON encoder). */
function line(host: string, headers: Record<string, string[]> = { 'User-Agent': ['curl/7.88.1'] }, logger = loggerPath): string {
  return JSON.stringify({
    level: 'info',
    ts: 1795506469.566,
    logger,
    msg: 'handled request',
    request: { remote_ip: '127.0.0.1', remote_port: '41630', proto: 'HTTP/1.1', method: 'GET', host, uri: '/', headers },
    duration: 0.0001,
    size: 4,
    status: 200,
  });
}

describe('parseAccessLine', () => {
  it('reads the host of a visit, lower-cased and without port', () => {
    expect(parseAccessLine(line('Blog.Dev.School.NL:8080'), loggerPath, token)).toEqual({ host: 'blog.dev.school.nl', fromScreenshotter: false });
  });

  it("tells the screenshot browser's requests apart by the header and its token, in any case", () => {
    expect(parseAccessLine(line('a.dev.nl', { [SCREENSHOT_HEADER]: [token] }), loggerPath, token)?.fromScreenshotter).toBe(true);
    expect(parseAccessLine(line('a.dev.nl', { 'x-devplein-screenshot': [token] }), loggerPath, token)?.fromScreenshotter).toBe(true);
    // Someone sending the header without the agent's token is a visitor like any other.
    expect(parseAccessLine(line('a.dev.nl', { [SCREENSHOT_HEADER]: ['guess'] }), loggerPath, token)?.fromScreenshotter).toBe(false);
  });

  it('ignores other loggers, other servers, broken lines and entries without a host', () => {
    expect(parseAccessLine(line('a.dev.nl', {}, 'http.log.access.other'), loggerPath, token)).toBeUndefined();
    expect(parseAccessLine(line('a.dev.nl', {}, 'http.log.error'), loggerPath, token)).toBeUndefined();
    expect(parseAccessLine('{"logger":', loggerPath, token)).toBeUndefined();
    expect(parseAccessLine('null', loggerPath, token)).toBeUndefined();
    expect(parseAccessLine(line(''), loggerPath, token)).toBeUndefined();
    expect(parseAccessLine(JSON.stringify({ logger: loggerPath, request: { host: 42 } }), loggerPath, token)).toBeUndefined();
  });

  it('normalises host names and refuses what is not one', () => {
    expect(normaliseHost(' Site.Dev.NL. ')).toBe('site.dev.nl');
    expect(normaliseHost('site.dev.nl:')).toBe('site.dev.nl');
    expect(normaliseHost('[::1]:80')).toBeUndefined();
    expect(normaliseHost(':80')).toBeUndefined();
  });
});

describe('withAccessLog', () => {
  const target = { server: 'srv1', address: '127.0.0.1:9466' };

  it('adds the UDP log of the server and keeps it out of the default log', () => {
    expect(withAccessLog(undefined, 'srv1', target)).toEqual({
      logs: {
        devplein_activity_srv1: { writer: { output: 'net', address: 'udp/127.0.0.1:9466' }, encoder: { format: 'json' }, include: [loggerPath] },
        default: { exclude: [loggerPath] },
      },
    });
  });

  it("keeps a sysadmin's logs and default log settings, and is stable when applied twice", () => {
    const sysadmin = { sink: { writer: { output: 'stderr' } }, logs: { default: { level: 'WARN', exclude: ['http.log.error'] }, audit: { include: ['admin'] } } };
    const once = withAccessLog(sysadmin, 'srv1', target);
    expect(once.sink).toEqual(sysadmin.sink);
    expect(once.logs).toMatchObject({ default: { level: 'WARN', exclude: ['http.log.error', loggerPath] }, audit: { include: ['admin'] } });
    expect(withAccessLog(once, 'srv1', target)).toEqual(once);
  });

  it('leaves a default log alone that does not include the access logger', () => {
    const logging = { logs: { default: { include: ['tls'] } } };
    expect(withAccessLog(logging, 'srv1', target).logs).toMatchObject({ default: { include: ['tls'] } });
    const covering = { logs: { default: { include: ['http.log'] } } };
    expect(withAccessLog(covering, 'srv1', target).logs).toMatchObject({ default: { include: ['http.log'], exclude: [loggerPath] } });
  });

  it('takes out only what it added when turned off', () => {
    const sysadmin = { logs: { default: { level: 'WARN' } } };
    expect(withAccessLog(withAccessLog(sysadmin, 'srv1', target), 'srv1', undefined)).toEqual(sysadmin);
    expect(withAccessLog(withAccessLog(undefined, 'srv1', target), 'srv1', undefined)).toEqual({});
    expect(withAccessLog(null, 'srv1', undefined)).toEqual({});
  });
});

describe('withServerLogs', () => {
  it("turns the server's access log on with the agent's logger, keeping other settings", () => {
    expect(withServerLogs(undefined, 'srv1', true)).toEqual({ default_logger_name: 'devplein_activity_srv1' });
    expect(withServerLogs({ skip_hosts: ['x.nl'] }, 'srv1', true)).toEqual({ skip_hosts: ['x.nl'], default_logger_name: 'devplein_activity_srv1' });
  });

  it("turns it off again, but never touches a sysadmin's own logs setting", () => {
    expect(withServerLogs({ default_logger_name: 'devplein_activity_srv1' }, 'srv1', false)).toBeUndefined();
    expect(withServerLogs({ default_logger_name: 'devplein_activity_srv1', skip_hosts: ['x.nl'] }, 'srv1', false)).toEqual({ skip_hosts: ['x.nl'] });
    expect(withServerLogs({}, 'srv1', false)).toEqual({});
    expect(withServerLogs({ default_logger_name: 'mine' }, 'srv1', false)).toEqual({ default_logger_name: 'mine' });
    expect(withServerLogs(undefined, 'srv1', false)).toBeUndefined();
  });
});

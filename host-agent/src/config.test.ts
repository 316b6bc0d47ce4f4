import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration, parseSize } from './config.ts';

const tls = { AGENT_TLS_CA: '/certs/ca.pem', AGENT_TLS_CERT: '/certs/agent.pem', AGENT_TLS_KEY: '/certs/agent-key.pem' };

describe('loadConfig', () => {
  it('fills the documented defaults', () => {
    const config = loadConfig(tls);
    expect(config).toMatchObject({
      listen: '127.0.0.1:7443',
      tls: { caPath: '/certs/ca.pem', certPath: '/certs/agent.pem', keyPath: '/certs/agent-key.pem' },
      allowedClients: ['devplein-control-plane'],
      logLevel: 'info',
      dockerSocket: '/var/run/docker.sock',
      mysqlUrl: undefined,
      chromiumPath: '/usr/bin/chromium',
    });
  });

  it('splits the allowed client list and accepts port 0', () => {
    const config = loadConfig({ ...tls, AGENT_ALLOWED_CLIENTS: ' devplein-control-plane, backup-cp ,', AGENT_LISTEN: 'localhost:0' });
    expect(config.allowedClients).toEqual(['devplein-control-plane', 'backup-cp']);
    expect(config.listen).toBe('localhost:0');
  });

  it('reads the git deploy settings, with their defaults', () => {
    expect(loadConfig(tls).deploy).toEqual({
      gitHosts: [],
      maxBytes: 200 * 1024 * 1024,
      fetchTimeoutMs: 120_000,
      commandTimeoutMs: 300_000,
      gitUser: 'devplein-git',
      firewall: 'iptables',
    });
    const set = loadConfig({
      ...tls,
      AGENT_GIT_HOSTS: ' Git.School.nl, github.com ,',
      AGENT_DEPLOY_MAX_BYTES: '50M',
      AGENT_DEPLOY_TIMEOUT_MS: '30000',
      AGENT_DEPLOY_COMMAND_TIMEOUT_MS: '60000',
      AGENT_GIT_USER: 'git-runner',
      AGENT_GIT_FIREWALL: 'off',
    }).deploy;
    expect(set).toEqual({ gitHosts: ['git.school.nl', 'github.com'], maxBytes: 50 * 1024 * 1024, fetchTimeoutMs: 30_000, commandTimeoutMs: 60_000, gitUser: 'git-runner', firewall: 'off' });
    expect(() => loadConfig({ ...tls, AGENT_DEPLOY_MAX_BYTES: 'veel' })).toThrow(/AGENT_DEPLOY_MAX_BYTES/);
    expect(() => loadConfig({ ...tls, AGENT_GIT_HOSTS: 'git.school.nl, kwaad host' })).toThrow(/AGENT_GIT_HOSTS/);
    expect(loadConfig({ ...tls, AGENT_GIT_HOSTS: 'git.school.nl,git.school.nl:2222' }).deploy.gitHosts).toEqual(['git.school.nl', 'git.school.nl:2222']);
    for (const bad of ['git.school.nl:0', 'git.school.nl:70000', 'git.school.nl:']) expect(() => loadConfig({ ...tls, AGENT_GIT_HOSTS: bad }), bad).toThrow(/AGENT_GIT_HOSTS/);
    expect(() => loadConfig({ ...tls, AGENT_GIT_USER: 'Root Beer' })).toThrow(/AGENT_GIT_USER/);
  });

  it('treats an empty AGENT_MYSQL_URL as unset', () => {
    expect(loadConfig({ ...tls, AGENT_MYSQL_URL: '' }).mysqlUrl).toBeUndefined();
    expect(loadConfig({ ...tls, AGENT_MYSQL_URL: 'mysql://root@127.0.0.1:3306' }).mysqlUrl).toBe('mysql://root@127.0.0.1:3306');
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({ AGENT_LISTEN: '7443', AGENT_MYSQL_URL: 'http://db', LOG_LEVEL: 'loud', AGENT_ALLOWED_CLIENTS: ' , ' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['AGENT_LISTEN', 'AGENT_TLS_CA', 'AGENT_TLS_CERT', 'AGENT_TLS_KEY', 'AGENT_MYSQL_URL', 'LOG_LEVEL', 'AGENT_ALLOWED_CLIENTS']) {
      expect(message).toContain(name);
    }
  });

  it('reads the screenshot pool settings: tab reuse 25 by default, 1 = a new tab per capture, 0 refused', () => {
    expect(loadConfig(tls).screenshots).toMatchObject({ pages: 4, recycleAfter: 200, capturesPerTab: 25 });
    expect(loadConfig({ ...tls, AGENT_SCREENSHOT_CAPTURES_PER_TAB: '1' }).screenshots.capturesPerTab).toBe(1);
    expect(() => loadConfig({ ...tls, AGENT_SCREENSHOT_CAPTURES_PER_TAB: '0' })).toThrow(/AGENT_SCREENSHOT_CAPTURES_PER_TAB/);
  });

  it('reads where the screenshot browser runs: a loopback server with its secret file, or none', () => {
    expect(loadConfig(tls).browser).toEqual({ server: undefined, secretFile: '', user: 'devplein-browser', firewall: 'iptables' });
    expect(loadConfig({ ...tls, AGENT_BROWSER_SERVER: '127.0.0.1:9223', AGENT_BROWSER_SECRET_FILE: '/run/x' }).browser).toMatchObject({ server: '127.0.0.1:9223', secretFile: '/run/x' });
    expect(() => loadConfig({ ...tls, AGENT_BROWSER_SERVER: '127.0.0.1:9223' })).toThrow(/AGENT_BROWSER_SECRET_FILE/);
    expect(() => loadConfig({ ...tls, AGENT_BROWSER_SERVER: '10.0.0.5:9223', AGENT_BROWSER_SECRET_FILE: '/run/x' })).toThrow(/loopback/);
    expect(() => loadConfig({ ...tls, AGENT_BROWSER_FIREWALL: 'nft' })).toThrow(/AGENT_BROWSER_FIREWALL/);
  });

  it('reads where git runs for deploys: the git runner with its secret file and state folder, or none', () => {
    expect(loadConfig(tls).deploy.runner).toBeUndefined();
    expect(loadConfig({ ...tls, AGENT_GIT_RUNNER: '' }).deploy.runner).toBeUndefined();
    expect(loadConfig({ ...tls, AGENT_GIT_RUNNER: '127.0.0.1:9224', AGENT_GIT_RUNNER_SECRET_FILE: '/run/g' }).deploy.runner).toEqual({
      url: 'http://127.0.0.1:9224',
      secretFile: '/run/g',
      stateDir: '/var/lib/devplein-git',
    });
    expect(loadConfig({ ...tls, AGENT_GIT_RUNNER: 'http://127.0.0.1:9224', AGENT_GIT_RUNNER_SECRET_FILE: '/run/g', AGENT_GIT_RUNNER_STATE_DIR: '/srv/git' }).deploy.runner).toMatchObject({
      url: 'http://127.0.0.1:9224',
      stateDir: '/srv/git',
    });
    expect(() => loadConfig({ ...tls, AGENT_GIT_RUNNER: '127.0.0.1:9224' })).toThrow(/AGENT_GIT_RUNNER_SECRET_FILE/);
    expect(() => loadConfig({ ...tls, AGENT_GIT_RUNNER: 'https://git.example:9224', AGENT_GIT_RUNNER_SECRET_FILE: '/run/g' })).toThrow(/loopback/);
  });

  it('isolates containers by default with MariaDB open, and no disk limit', () => {
    expect(loadConfig(tls).containers).toMatchObject({ firewall: 'iptables', allowedHostPorts: [3306], diskLimitBytes: undefined });
    expect(loadConfig({ ...tls, AGENT_CONTAINER_HOST_PORTS: ' 3306, 5432,3306' }).containers.allowedHostPorts).toEqual([3306, 5432]);
    expect(loadConfig({ ...tls, AGENT_CONTAINER_HOST_PORTS: '' }).containers.allowedHostPorts).toEqual([]);
    expect(loadConfig({ ...tls, AGENT_CONTAINER_FIREWALL: 'off' }).containers.firewall).toBe('off');
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_HOST_PORTS: '3306,70000' })).toThrow(/AGENT_CONTAINER_HOST_PORTS/);
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_HOST_PORTS: '3306-3310' })).toThrow(/AGENT_CONTAINER_HOST_PORTS/);
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_FIREWALL: 'nftables' })).toThrow(/AGENT_CONTAINER_FIREWALL/);
  });

  it('reads the disk limit as a size; empty or 0 is none, tiny or garbage is refused', () => {
    expect(loadConfig({ ...tls, AGENT_CONTAINER_DISK_LIMIT: '2G' }).containers.diskLimitBytes).toBe(2 * 1024 ** 3);
    expect(loadConfig({ ...tls, AGENT_CONTAINER_DISK_LIMIT: '0' }).containers.diskLimitBytes).toBeUndefined();
    expect(loadConfig({ ...tls, AGENT_CONTAINER_DISK_LIMIT: ' ' }).containers.diskLimitBytes).toBeUndefined();
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_DISK_LIMIT: '10M' })).toThrow(/AGENT_CONTAINER_DISK_LIMIT.*at least 64M/);
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_DISK_LIMIT: 'lots' })).toThrow(/AGENT_CONTAINER_DISK_LIMIT/);
  });

  it('parses sizes in powers of 1024, as Docker does', () => {
    expect(parseSize('512M')).toBe(512 * 1024 ** 2);
    expect(parseSize('1.5g')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('2GB')).toBe(2 * 1024 ** 3);
    expect(parseSize('2GiB')).toBe(2 * 1024 ** 3);
    expect(parseSize('1073741824')).toBe(1024 ** 3);
    expect(parseSize('1T')).toBe(1024 ** 4);
    expect(parseSize('-1G')).toBeUndefined();
    expect(parseSize('2 X')).toBeUndefined();
    expect(parseSize('')).toBeUndefined();
  });

  it('refuses a port above 65535', () => {
    expect(() => loadConfig({ ...tls, AGENT_LISTEN: '127.0.0.1:70000' })).toThrow(/AGENT_LISTEN/);
  });

  it('turns the idle auto-stop on by default (7 days) and off with 0 or empty', () => {
    expect(loadConfig(tls).idleStop).toEqual({ afterMs: 7 * 86_400_000, cron: '*/5 * * * *', accessLogListen: '127.0.0.1:9466' });
    expect(loadConfig({ ...tls, AGENT_IDLE_STOP_AFTER: '0' }).idleStop).toBeUndefined();
    expect(loadConfig({ ...tls, AGENT_IDLE_STOP_AFTER: '' }).idleStop).toBeUndefined();
    expect(loadConfig({ ...tls, AGENT_IDLE_STOP_AFTER: '1d12h', AGENT_ACCESS_LOG_LISTEN: '127.0.0.1:0' }).idleStop).toMatchObject({ afterMs: 36 * 3_600_000, accessLogListen: '127.0.0.1:0' });
  });

  it('refuses a bad idle time, a public access log address, and idle auto-stop without its listener', () => {
    expect(() => loadConfig({ ...tls, AGENT_IDLE_STOP_AFTER: '7 days' })).toThrow(/AGENT_IDLE_STOP_AFTER/);
    expect(() => loadConfig({ ...tls, AGENT_ACCESS_LOG_LISTEN: '0.0.0.0:9466' })).toThrow(/AGENT_ACCESS_LOG_LISTEN.*loopback/);
    expect(() => loadConfig({ ...tls, AGENT_ACCESS_LOG_LISTEN: '' })).toThrow(/AGENT_ACCESS_LOG_LISTEN/);
    expect(loadConfig({ ...tls, AGENT_ACCESS_LOG_LISTEN: '', AGENT_IDLE_STOP_AFTER: '0' }).idleStop).toBeUndefined();
  });

  it('bounds what a create may ask for: defaults 2 GiB, 2 CPUs, 1024 processes, never below the per-container defaults', () => {
    expect(loadConfig(tls).containers).toMatchObject({ maxMemoryBytes: 2048 * 1024 * 1024, maxNanoCpus: 2e9, maxPids: 1024 });
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_MEMORY_MB: '1024', AGENT_CONTAINER_MAX_MEMORY_MB: '512' })).toThrow(/AGENT_CONTAINER_MAX_MEMORY_MB/);
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_MAX_CPUS: '0.5' })).toThrow(/AGENT_CONTAINER_MAX_CPUS/);
    expect(() => loadConfig({ ...tls, AGENT_CONTAINER_MAX_PIDS: '100' })).toThrow(/AGENT_CONTAINER_MAX_PIDS/);
  });

  it('gives student accounts 10 connections each by default', () => {
    expect(loadConfig(tls).mysqlMaxUserConnections).toBe(10);
    expect(loadConfig({ ...tls, AGENT_MYSQL_MAX_USER_CONNECTIONS: '3' }).mysqlMaxUserConnections).toBe(3);
    expect(() => loadConfig({ ...tls, AGENT_MYSQL_MAX_USER_CONNECTIONS: '0' })).toThrow(/AGENT_MYSQL_MAX_USER_CONNECTIONS/);
  });

  it('lets only TCP 3306 through the VPN firewall by default; more is listed by protocol and port', () => {
    expect(loadConfig(tls).vpn.firewallAllow).toEqual([{ protocol: 'tcp', firstPort: 3306, lastPort: 3306 }]);
    expect(loadConfig({ ...tls, AGENT_WG_FIREWALL_ALLOW: 'tcp/3306, udp/53,tcp/8000-8100,icmp' }).vpn.firewallAllow).toEqual([
      { protocol: 'tcp', firstPort: 3306, lastPort: 3306 },
      { protocol: 'udp', firstPort: 53, lastPort: 53 },
      { protocol: 'tcp', firstPort: 8000, lastPort: 8100 },
      { protocol: 'icmp' },
    ]);
    expect(loadConfig({ ...tls, AGENT_WG_FIREWALL_ALLOW: 'all' }).vpn.firewallAllow).toEqual([{ protocol: 'all' }]);
    for (const bad of ['', 'tcp', 'tcp/0', 'tcp/70000', 'tcp/20-10', 'sctp/1', '3306', 'tcp/3306;ls']) {
      expect(() => loadConfig({ ...tls, AGENT_WG_FIREWALL_ALLOW: bad }), bad).toThrow(/AGENT_WG_FIREWALL_ALLOW/);
    }
  });

  it('reads the site domain the agent routes and captures under', () => {
    expect(loadConfig(tls).siteDomain).toBe('dev.devplein.test');
    expect(loadConfig({ ...tls, AGENT_SITE_DOMAIN: 'Dev.School.nl' }).siteDomain).toBe('dev.school.nl');
  });
});

describe('parseDuration', () => {
  it('reads days, hours, minutes and seconds in that order', () => {
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration(' 12H ')).toBe(43_200_000);
    expect(parseDuration('1d2h3m4s')).toBe(93_784_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('')).toBe(0);
    for (const bad of ['7', '1h1d', 'd', '-1d', '1.5h', '7 d', 'forever']) expect(parseDuration(bad), bad).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

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

  it('refuses a port above 65535', () => {
    expect(() => loadConfig({ ...tls, AGENT_LISTEN: '127.0.0.1:70000' })).toThrow(/AGENT_LISTEN/);
  });
});

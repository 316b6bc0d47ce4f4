import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable, probeChromium, probeDocker, probeMysql, probeProxy, probeWireguard } from './capabilities.ts';

let dir: string;
const servers: Array<http.Server | net.Server> = [];

function listen<T extends http.Server | net.Server>(server: T, target: string | number): Promise<T> {
  servers.push(server);
  return new Promise((resolve) => {
    if (typeof target === 'string') server.listen(target, () => resolve(server));
    else server.listen(target, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: http.Server | net.Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** A port nothing listens on: bound once, then closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = portOf(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-capabilities-'));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

describe('probeDocker', () => {
  it('is available when the engine answers /_ping on its socket, with its version as detail', async () => {
    const socket = path.join(dir, 'docker.sock');
    await listen(
      http.createServer((request, response) => {
        if (request.url === '/_ping') response.end('OK');
        else if (request.url === '/version') response.end(JSON.stringify({ Version: '26.1.5', ApiVersion: '1.45' }));
        else response.writeHead(404).end();
      }),
      socket,
    );
    expect(await probeDocker(socket, 1_000)).toEqual({ available: true, detail: `Docker 26.1.5 (API 1.45) at ${socket}` });
  });

  it('is unavailable when the socket is missing or the engine answers badly', async () => {
    const missing = await probeDocker(path.join(dir, 'none.sock'), 1_000);
    expect(missing.available).toBe(false);
    expect(missing.detail).toContain('ENOENT');

    const broken = path.join(dir, 'broken.sock');
    await listen(http.createServer((_request, response) => response.writeHead(500).end()), broken);
    expect(await probeDocker(broken, 1_000)).toMatchObject({ available: false, detail: expect.stringContaining('HTTP 500') });
  });

  it('gives up after the timeout when the engine hangs', async () => {
    const hanging = path.join(dir, 'hanging.sock');
    await listen(http.createServer(() => undefined), hanging);
    const started = Date.now();
    const state = await probeDocker(hanging, 200);
    expect(state.available).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('probeProxy', () => {
  it('is available when the admin API answers with any status', async () => {
    const server = await listen(http.createServer((_request, response) => response.writeHead(404).end()), 0);
    const state = await probeProxy(`http://127.0.0.1:${portOf(server)}`, 1_000);
    expect(state).toMatchObject({ available: true, detail: expect.stringContaining('HTTP 404') });
  });

  it('is unavailable when nothing listens', async () => {
    const state = await probeProxy(`http://127.0.0.1:${await closedPort()}`, 1_000);
    expect(state).toMatchObject({ available: false, detail: expect.stringContaining('ECONNREFUSED') });
  });
});

describe('probeMysql', () => {
  it('is unavailable without AGENT_MYSQL_URL', async () => {
    expect(await probeMysql(undefined, 1_000)).toEqual({ available: false, detail: 'AGENT_MYSQL_URL is not set' });
  });

  it('connects over TCP and never shows the credentials', async () => {
    const server = await listen(net.createServer((socket) => socket.end()), 0);
    const state = await probeMysql(`mysql://root:secret@127.0.0.1:${portOf(server)}/`, 1_000);
    expect(state).toEqual({ available: true, detail: `MySQL server at 127.0.0.1:${portOf(server)}` });

    const down = await probeMysql(`mysql://root:secret@127.0.0.1:${await closedPort()}`, 1_000);
    expect(down.available).toBe(false);
    expect(down.detail).not.toContain('secret');
  });

  it('connects over a unix socket named by ?socket=', async () => {
    const socket = path.join(dir, 'mysqld.sock');
    await listen(net.createServer((connection) => connection.end()), socket);
    expect(await probeMysql(`mysql://root@localhost/?socket=${encodeURIComponent(socket)}`, 1_000)).toEqual({
      available: true,
      detail: `MySQL server at ${socket}`,
    });
  });
});

describe('binaries (chromium, wg)', () => {
  it('finds executables by path or on PATH', async () => {
    const tool = path.join(dir, 'wg');
    await writeFile(tool, '#!/bin/sh\n');
    await chmod(tool, 0o755);
    expect(await findExecutable('wg', `/nonexistent${path.delimiter}${dir}`)).toBe(tool);
    expect(await findExecutable(tool)).toBe(tool);
    expect(await findExecutable('devplein-no-such-tool', dir)).toBeUndefined();
    expect(await probeChromium(tool)).toEqual({ available: true, detail: `Chromium at ${tool}` });
    expect(await probeChromium(path.join(dir, 'chromium'))).toMatchObject({ available: false });
    expect(await probeWireguard(tool)).toEqual({ available: true, detail: `wg at ${tool}` });
    expect(await probeWireguard('devplein-no-such-wg')).toMatchObject({ available: false });
  });
});

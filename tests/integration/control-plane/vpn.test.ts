import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { ADMIN, DEVELOPER, DOCENT, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { wireguardPublicKeyOf } from '../../../control-plane/src/lib/wireguard-keys.ts';
import { vpnConfigQrSvg } from '../../../control-plane/src/lib/vpn-config-file.ts';
import { ownVpnConfig } from '@devplein/contract/http/vpn';
import { call } from '../../support/clients/endpoint-calls.ts';

const execFileAsync = promisify(execFile);
/** Runs a command; a hanging one fails the test instead of holding it until the test timeout. */
const run = (command: string, args: string[]) => execFileAsync(command, args, { timeout: 10_000 });


const UNREACHABLE = 'De VPN-server is op dit moment niet bereikbaar. Probeer het zo opnieuw.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let stack: HostingStack;

beforeAll(async () => {
  stack = await startHostingStack();
});

afterAll(async () => {
  await stack?.stop();
});

/** `Key = value` lines of a .conf per section. */
function parseConf(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let current: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = {};
      sections[section[1] ?? ''] = current;
    } else if (line.includes('=')) {
      const index = line.indexOf('=');
      current[line.slice(0, index).trim()] = line.slice(index + 1).trim();
    }
  }
  return sections;
}

async function download(session: HttpSession, identifier: string): Promise<Response> {
  return session.raw(`/api/vpn/${identifier}`);
}

describe('VPN API: who may', () => {
  type Call = { name: string; send: (session: HttpSession) => Promise<Response> };
  const someIdentifier = '00000000-0000-4000-8000-000000000000';
  const calls: Call[] = [
    { name: 'GET /api/vpn', send: (s) => s.api('GET', '/api/vpn') },
    { name: 'POST /api/vpn', send: (s) => s.api('POST', '/api/vpn') },
    { name: 'GET /api/vpn/{identifier}', send: (s) => s.api('GET', `/api/vpn/${someIdentifier}`) },
    { name: 'GET /api/vpn/qr', send: (s) => s.api('GET', '/api/vpn/qr') },
  ];

  it('anonymous 401; not activated, students and admins who are not developers 403; nothing reaches the agent', async () => {
    const before = stack.agent.calls.length;
    for (const call of calls) {
      expect((await call.send(await stack.anonymous())).status, `${call.name} anonymous`).toBe(401);
      const newcomer = await call.send(await stack.as(NOT_ACTIVATED));
      expect(newcomer.status, `${call.name} not activated`).toBe(403);
      expect(((await newcomer.json()) as { reason?: string }).reason).toBe('not_verified');
      for (const email of [STUDENT, DOCENT]) {
        const answer = await call.send(await stack.as(email));
        expect(answer.status, `${call.name} ${email}`).toBe(403);
        expect(((await answer.json()) as { message: string }).message).toBe('De VPN is alleen voor ontwikkelaars.');
      }
    }
    const vpnMethods = ['createPeer', 'removePeer', 'listPeers', 'getServerInfo'];
    expect(stack.agent.calls.slice(before).filter((call) => vpnMethods.includes(call.method))).toEqual([]);
    expect(await stack.database.knex('vpn_configs').select('id')).toEqual([]);
  });

  it('tells a developer without a configuration: null, and no file or QR code (404)', async () => {
    for (const email of [DEVELOPER, ADMIN]) {
      const session = await stack.as(email);
      const response = await session.api('GET', '/api/vpn');
      expect(response.status, email).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await response.json()).toBeNull();
      expect((await session.api('GET', '/api/vpn/qr')).status).toBe(404);
      expect((await session.api('GET', `/api/vpn/${someIdentifier}`)).status).toBe(404);
    }
  });
});

describe('VPN API: a developer’s configuration', () => {
  let identifier = '';

  it('creates a peer with only the public key, stores the private key sealed, and answers {identifier}', async () => {
    const olga = await stack.as(DEVELOPER);
    const olgaId = await stack.userId(DEVELOPER);
    const { status, body } = await olga.json<{ identifier: string }>('POST', '/api/vpn');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['identifier']);
    expect(body.identifier).toMatch(UUID);
    identifier = body.identifier;

    const row = await stack.database.knex('vpn_configs').where({ user_id: olgaId }).first();
    expect(row).toMatchObject({ identifier, address: '10.8.0.2/32' });
    expect(row.private_key_encrypted).toMatch(/^v1\./);

    const [call] = stack.agent.callsOf('createPeer');
    expect(call?.request).toEqual({ publicKey: row.public_key, address: '', identifier, userId: olgaId });
    expect(JSON.stringify(stack.agent.calls)).not.toContain(row.private_key_encrypted);
    expect(stack.agent.peers.get(row.public_key)).toMatchObject({ address: '10.8.0.2/32', identifier, userId: olgaId });
  });

  it('answers the same identifier to a second call (also at once), without a second peer', async () => {
    const olga = await stack.as(DEVELOPER);
    const peers = stack.agent.callsOf('createPeer').length;
    const answers = await Promise.all([olga.json<{ identifier: string }>('POST', '/api/vpn'), olga.json<{ identifier: string }>('POST', '/api/vpn')]);
    expect(answers).toEqual([
      { status: 200, body: { identifier } },
      { status: 200, body: { identifier } },
    ]);
    expect(stack.agent.callsOf('createPeer')).toHaveLength(peers);
    expect(stack.agent.peers.size).toBe(1);
  });

  it('shows {identifier, address, createdAt}', async () => {
    const body = await call(await stack.as(DEVELOPER), ownVpnConfig, {});
    expect(body).toEqual({ identifier, address: '10.8.0.2/32', createdAt: expect.any(String) });
    expect(Number.isNaN(Date.parse(body?.createdAt ?? ''))).toBe(false);
  });

  it('downloads the .conf: its own key pair, its address, the server, only the allowed networks, keepalive 25', async () => {
    const response = await download(await stack.as(DEVELOPER), identifier);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="devplein.conf"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    const conf = parseConf(text);
    const row = await stack.database.knex('vpn_configs').where({ identifier }).first();
    expect(Object.keys(conf)).toEqual(['Interface', 'Peer']);
    expect(wireguardPublicKeyOf(conf.Interface?.PrivateKey ?? '')).toBe(row.public_key);
    expect(conf.Interface).toEqual({ PrivateKey: expect.any(String), Address: '10.8.0.2/32' });
    expect(conf.Peer).toEqual({
      PublicKey: stack.agent.vpnServer.publicKey,
      Endpoint: 'localhost:51820',
      AllowedIPs: '10.8.0.1/32',
      PersistentKeepalive: '25',
    });
    expect(text).not.toContain('0.0.0.0/0');
    // The same file twice: the private key is kept (the page says the file can be downloaded again).
    expect(await (await download(await stack.as(DEVELOPER), identifier)).text()).toBe(text);
  });

  it('is a file wg accepts: wg-quick strip, then wg setconf on a wireguard-go interface', async () => {
    const text = await (await download(await stack.as(DEVELOPER), identifier)).text();
    const suffix = randomBytes(3).toString('hex');
    const iface = `wgc2${suffix}`;
    const namespace = `devplein-c2-${suffix}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-vpn-'));
    const confPath = path.join(dir, `${iface}.conf`);
    writeFileSync(confPath, text, { mode: 0o600 });
    await run('ip', ['netns', 'add', namespace]);
    let wireguard: ChildProcess | undefined;
    try {
      const { stdout: stripped } = await run('wg-quick', ['strip', confPath]);
      expect(stripped).not.toContain('Address');
      writeFileSync(path.join(dir, 'stripped.conf'), stripped, { mode: 0o600 });
      wireguard = spawn('ip', ['netns', 'exec', namespace, 'wireguard-go', '--foreground', iface], { stdio: 'ignore' });
      await waitFor(async () => (await run('ip', ['netns', 'exec', namespace, 'wg', 'show', iface]).then(() => true, () => false)), {
        description: `wireguard-go making ${iface}`,
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      await run('ip', ['netns', 'exec', namespace, 'wg', 'setconf', iface, path.join(dir, 'stripped.conf')]);
      const { stdout: shown } = await run('ip', ['netns', 'exec', namespace, 'wg', 'show', iface, 'allowed-ips']);
      expect(shown.trim()).toBe(`${stack.agent.vpnServer.publicKey}\t10.8.0.1/32`);
    } finally {
      wireguard?.kill();
      await run('ip', ['netns', 'exec', namespace, 'ip', 'link', 'del', iface]).catch(() => undefined);
      await run('ip', ['netns', 'del', namespace]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the same file as an SVG QR code', async () => {
    const olga = await stack.as(DEVELOPER);
    const text = await (await download(olga, identifier)).text();
    const response = await olga.raw('/api/vpn/qr');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const svg = await response.text();
    expect(svg).toMatch(/<svg[\s>]/);
    expect(svg).toBe(await vpnConfigQrSvg(text));
  });

  it('gives the file to its owner only: others (and unknown or malformed identifiers) get 404', async () => {
    const anna = await stack.as(ADMIN);
    expect((await download(anna, identifier)).status).toBe(404);
    expect((await download(anna, identifier.toUpperCase())).status).toBe(404);
    expect((await download(anna, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await download(anna, 'geen-uuid')).status).toBe(404);
    expect((await download(anna, "1' or '1'='1")).status).toBe(404);
    expect((await anna.api('GET', '/api/vpn/qr')).status).toBe(404);
    expect(await (await anna.api('GET', '/api/vpn')).json()).toBeNull();
    for (const email of [STUDENT, DOCENT]) expect((await download(await stack.as(email), identifier)).status).toBe(403);
    expect((await download(await stack.anonymous(), identifier)).status).toBe(401);
  });

  it('refuses a file that would route everything (a misconfigured agent): 502 with a Dutch message, no file', async () => {
    const allowed = stack.agent.vpnServer.allowedNetworks;
    stack.agent.vpnServer.allowedNetworks = ['10.8.0.1/32', '0.0.0.0/0'];
    try {
      const response = await download(await stack.as(DEVELOPER), identifier);
      expect(response.status).toBe(502);
      expect(response.headers.get('content-disposition')).toBeNull();
      expect(((await response.json()) as { message: string }).message).toContain('De VPN-server is niet goed ingesteld');
    } finally {
      stack.agent.vpnServer.allowedNetworks = allowed;
    }
  });

  it('removes the peer through the agent when its user is deleted (no more 409), then the configuration', async () => {
    const leaver = await stack.newDeveloper('Vertrekt Met VPN');
    expect((await leaver.session.json('POST', '/api/vpn')).status).toBe(200);
    const { public_key: publicKey } = await stack.database.knex('vpn_configs').where({ user_id: leaver.id }).first('public_key');
    expect(stack.agent.peers.has(publicKey)).toBe(true);
    expect((await (await stack.as(ADMIN)).api('DELETE', `/api/admin/users/${leaver.id}`)).status).toBe(204);
    expect(stack.agent.peers.has(publicKey)).toBe(false);
    expect(await stack.database.knex('vpn_configs').where({ user_id: leaver.id })).toEqual([]);
  });
});

describe('VPN API: when the agent fails', () => {
  it('answers 503 and stores nothing when the agent is unavailable, and when it is off the network', async () => {
    const anna = await stack.as(ADMIN);
    stack.agent.mode = 'unavailable';
    try {
      expect(await anna.json('POST', '/api/vpn')).toEqual({ status: 503, body: { message: UNREACHABLE } });
    } finally {
      stack.agent.mode = 'ok';
    }
    const olga = await stack.as(DEVELOPER);
    const own = await call(olga, ownVpnConfig, {});
    await stack.agent.stop();
    try {
      expect(await anna.json('POST', '/api/vpn')).toEqual({ status: 503, body: { message: UNREACHABLE } });
      expect(await olga.json('GET', `/api/vpn/${own?.identifier}`)).toEqual({ status: 503, body: { message: UNREACHABLE } });
      expect((await olga.api('GET', '/api/vpn/qr')).status).toBe(503);
    } finally {
      await stack.restartAgent();
    }
    expect(await (await anna.api('GET', '/api/vpn')).json()).toBeNull();
    expect(await stack.database.knex('vpn_configs').where({ user_id: await stack.userId(ADMIN) })).toEqual([]);
  });

  it('a failing CreatePeer (INTERNAL) stores nothing; a full pool is a 503 with its own message', async () => {
    const anna = await stack.as(ADMIN);
    stack.agent.failingMethods.add('createPeer');
    try {
      expect((await anna.json('POST', '/api/vpn')).status).toBe(502);
    } finally {
      stack.agent.failingMethods.delete('createPeer');
    }
    const size = stack.agent.vpnPoolSize;
    stack.agent.vpnPoolSize = stack.agent.peers.size;
    try {
      expect(await anna.json('POST', '/api/vpn')).toEqual({ status: 503, body: { message: 'Er zijn geen VPN-adressen meer vrij. Meld dit bij een docent.' } });
    } finally {
      stack.agent.vpnPoolSize = size;
    }
    expect(await (await anna.api('GET', '/api/vpn')).json()).toBeNull();
  });

  it('answers 501 while the agent does not implement the VPN yet, and stores nothing', async () => {
    const anna = await stack.as(ADMIN);
    stack.agent.unimplementedMethods.add('createPeer');
    try {
      expect(await anna.json('POST', '/api/vpn')).toEqual({ status: 501, body: { message: 'De VPN wordt door de ontwikkelserver nog niet ondersteund.' } });
    } finally {
      stack.agent.unimplementedMethods.delete('createPeer');
    }
    expect(await (await anna.api('GET', '/api/vpn')).json()).toBeNull();
  });
});

describe('VPN API: many at once', () => {
  it('50 developers creating their configuration at the same time get 50 distinct addresses', async () => {
    const { knex } = stack.database;
    const group = await knex('groups').where({ cohort: 'SD22' }).first<{ id: number }>('id');
    const emails = Array.from({ length: 50 }, (_, index) => `vpn${String(index).padStart(2, '0')}@devplein.test`);
    await knex('users').insert(
      emails.map((email, index) => ({
        name: `Vpn Tester ${index}`,
        name_slug: `vpn-tester-${index}`,
        email,
        email_verified_at: new Date(),
        developer: true,
        group_id: group.id,
      })),
    );
    const sessions = await Promise.all(emails.map((email) => stack.as(email)));
    const answers = await Promise.all(sessions.map((session) => session.json<{ identifier: string }>('POST', '/api/vpn')));
    expect(answers.map((answer) => answer.status)).toEqual(emails.map(() => 200));
    expect(new Set(answers.map((answer) => answer.body.identifier)).size).toBe(50);

    const rows = await knex('vpn_configs')
      .join('users', 'users.id', 'vpn_configs.user_id')
      .whereIn('users.email', emails)
      .select<{ address: string; public_key: string; identifier: string }[]>('vpn_configs.address', 'vpn_configs.public_key', 'vpn_configs.identifier');
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((row) => row.address)).size).toBe(50);
    for (const row of rows) {
      expect(row.address).toMatch(/^10\.8\.0\.\d{1,3}\/32$/);
      expect(stack.agent.peers.get(row.public_key)).toMatchObject({ address: row.address, identifier: row.identifier });
    }
    // Each downloads a file with its own address.
    const files = await Promise.all(sessions.slice(0, 5).map(async (session, index) => parseConf(await (await download(session, answers[index]?.body.identifier ?? '')).text())));
    expect(new Set(files.map((conf) => conf.Interface?.Address)).size).toBe(5);
  });
});

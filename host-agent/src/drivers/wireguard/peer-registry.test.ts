import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePool } from './addresses.ts';
import { PeerError, PeerRegistry } from './peer-registry.ts';
import { peersFilePath, wireguardStateDir } from './state.ts';
import { type InterfaceSpec, type PeerRuntime, type WireGuardHost, WireGuardUnavailableError } from './wireguard-host.ts';

/** An interface in memory; `failNext` makes the next peer change fail like `wg set` would. */
class FakeHost implements WireGuardHost {
  peers = new Map<string, string>();
  bringUps: InterfaceSpec[] = [];
  firewall: ReadonlyArray<string> | undefined = undefined;
  failNext = false;
  unavailable: string | undefined;

  async bringUp(spec: InterfaceSpec): Promise<void> {
    if (this.unavailable) throw new WireGuardUnavailableError(this.unavailable);
    this.bringUps.push(spec);
    this.peers = new Map(spec.peers.map((peer) => [peer.publicKey, peer.address]));
  }
  async applyFirewall(networks: readonly string[] | undefined): Promise<void> {
    this.firewall = networks;
  }
  private maybeFail(): void {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('wg: Unable to modify interface: No such device');
    }
  }
  async setPeer(publicKey: string, address: string): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    this.maybeFail();
    this.peers.set(publicKey, address);
  }
  async removePeer(publicKey: string): Promise<void> {
    this.maybeFail();
    this.peers.delete(publicKey);
  }
  async peerRuntime(): Promise<PeerRuntime[]> {
    return [...this.peers.keys()].map((publicKey) => ({ publicKey, latestHandshake: new Date(1_700_000_000_000), receivedBytes: 5, sentBytes: 7 }));
  }
}

let dataDir: string;
let host: FakeHost;
const key = () => randomBytes(32).toString('base64');
const logger = pino({ level: 'silent' });

function registry(pool = '10.8.0.0/24'): PeerRegistry {
  return new PeerRegistry({ host, dataDir, interfaceName: 'wgt0', listenPort: 51820, pool: parsePool(pool), firewallNetworks: ['10.8.0.1/32'], logger });
}

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PeerError) return error.kind;
    throw error;
  }
  throw new Error('expected a refusal');
}

const stored = async () => JSON.parse(await readFile(peersFilePath(dataDir, 'wgt0'), 'utf8')) as { peers: Array<{ publicKey: string; address: string }> };

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-wg-registry-'));
  host = new FakeHost();
});
afterEach(async () => {
  await chmod(wireguardStateDir(dataDir), 0o700).catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
});

describe('PeerRegistry', () => {
  it('leaves a host without VPN state alone at start, and brings the interface up on first use', async () => {
    expect(await registry().start()).toBe(false);
    expect(host.bringUps).toHaveLength(0);
    const peers = registry();
    await peers.serverPublicKey();
    expect(await peers.start()).toBe(true);
    expect(host.bringUps).toHaveLength(1);
    expect(host.bringUps[0]).toMatchObject({ address: '10.8.0.1/24', listenPort: 51820, peers: [] });
    expect(host.firewall).toEqual(['10.8.0.1/32']);
  });

  it('takes the lowest free address, returns an existing key unchanged, and persists', async () => {
    const peers = registry();
    const a = key();
    const first = await peers.create({ publicKey: a, address: '', identifier: 'id-a', userId: 1 });
    expect(first).toEqual({ peer: { publicKey: a, address: '10.8.0.2/32', identifier: 'id-a', userId: 1 }, created: true });
    expect(await peers.create({ publicKey: a, address: '10.8.0.50', identifier: 'other', userId: 9 })).toEqual({ ...first, created: false });
    const b = key();
    expect((await peers.create({ publicKey: b, address: '10.8.0.3/32', identifier: 'id-b', userId: 2 })).peer?.address).toBe('10.8.0.3/32');
    const c = key();
    expect((await peers.create({ publicKey: c, address: '', identifier: 'id-c', userId: 3 })).peer.address).toBe('10.8.0.4/32');
    expect(await peers.remove(b)).toBe(true);
    expect(await peers.remove(b)).toBe(false);
    // The freed address is the lowest free one again.
    expect((await peers.create({ publicKey: key(), address: '', identifier: 'id-d', userId: 4 })).peer.address).toBe('10.8.0.3/32');
    expect((await stored()).peers.map((peer) => peer.address)).toEqual(['10.8.0.2/32', '10.8.0.4/32', '10.8.0.3/32']);
    expect([...host.peers.values()].sort()).toEqual(['10.8.0.2/32', '10.8.0.3/32', '10.8.0.4/32']);
    const listed = await peers.list();
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({ publicKey: a, receivedBytes: 5, sentBytes: 7 });
  });

  it('never hands out an address twice, also with 50 concurrent creates', async () => {
    const peers = registry();
    const results = await Promise.all(Array.from({ length: 50 }, (_, index) => peers.create({ publicKey: key(), address: '', identifier: `p${index}`, userId: index + 1 })));
    const addresses = new Set(results.map((result) => result.peer.address));
    expect(addresses.size).toBe(50);
    expect(host.peers.size).toBe(50);
    expect((await stored()).peers).toHaveLength(50);
    expect(addresses.has('10.8.0.51/32')).toBe(true);
  });

  it('refuses bad input, a taken address and a full pool', async () => {
    const peers = registry('10.8.0.0/30');
    expect(await kindOf(peers.create({ publicKey: 'abc', address: '', identifier: 'x', userId: 1 }))).toBe('invalid');
    expect(await kindOf(peers.create({ publicKey: key(), address: '10.9.0.2', identifier: 'x', userId: 1 }))).toBe('invalid');
    expect(await kindOf(peers.create({ publicKey: key(), address: '10.8.0.1', identifier: 'x', userId: 1 }))).toBe('invalid');
    expect(await kindOf(peers.create({ publicKey: key(), address: '', identifier: 'x', userId: 0 }))).toBe('invalid');
    expect(await kindOf(peers.remove('not a key'))).toBe('invalid');
    await peers.create({ publicKey: key(), address: '10.8.0.2', identifier: 'x', userId: 1 });
    expect(await kindOf(peers.create({ publicKey: key(), address: '10.8.0.2/32', identifier: 'y', userId: 2 }))).toBe('exists');
    expect(await kindOf(peers.create({ publicKey: key(), address: '', identifier: 'z', userId: 3 }))).toBe('exhausted');
  });

  it('persists nothing when `wg set` fails, and brings the interface up again on the next call', async () => {
    const peers = registry();
    await peers.bringUp();
    host.failNext = true;
    expect(await kindOf(peers.create({ publicKey: key(), address: '', identifier: 'x', userId: 1 }))).toBe('unavailable');
    expect(await peers.list()).toEqual([]);
    expect(host.bringUps).toHaveLength(2);
    expect((await peers.create({ publicKey: key(), address: '', identifier: 'y', userId: 1 })).peer.address).toBe('10.8.0.2/32');
  });

  it('takes the peer back off the interface when it cannot be saved', async () => {
    const peers = registry();
    await peers.bringUp();
    await chmod(wireguardStateDir(dataDir), 0o500);
    if (process.getuid?.() === 0) {
      // Root ignores directory modes: make the rename fail instead (a directory in the file's place).
      await chmod(wireguardStateDir(dataDir), 0o700);
      await mkdir(peersFilePath(dataDir, 'wgt0'));
      await writeFile(path.join(peersFilePath(dataDir, 'wgt0'), 'x'), '');
    }
    await expect(peers.create({ publicKey: key(), address: '', identifier: 'x', userId: 1 })).rejects.toThrow();
    expect(host.peers.size).toBe(0);
  });

  it('answers unavailable with the reason when WireGuard cannot come up, and a corrupt peers file likewise', async () => {
    host.unavailable = 'wireguard-go is not installed (not found on PATH)';
    const error = await registry().serverPublicKey().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PeerError);
    expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('wireguard-go is not installed') });

    host.unavailable = undefined;
    await mkdir(wireguardStateDir(dataDir), { recursive: true });
    await writeFile(peersFilePath(dataDir, 'wgt0'), 'not json');
    const corrupt = await registry().list().catch((caught: unknown) => caught);
    expect(corrupt).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('not valid JSON') });
  });

  it('restores every persisted peer on a new registry (an agent restart)', async () => {
    const first = registry();
    const keys = [key(), key(), key()];
    for (const [index, publicKey] of keys.entries()) await first.create({ publicKey, address: '', identifier: `p${index}`, userId: 1 });
    host = new FakeHost();
    const second = registry();
    expect(await second.start()).toBe(true);
    expect(host.bringUps[0]?.peers.map((peer) => peer.publicKey)).toEqual(keys);
    expect((await second.create({ publicKey: key(), address: '', identifier: 'new', userId: 1 })).peer.address).toBe('10.8.0.5/32');
  });
});

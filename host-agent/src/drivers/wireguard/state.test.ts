import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateWireGuardKeyPair } from './keys.ts';
import { keyFilePath, loadOrCreatePrivateKey, loadPeers, peersFilePath, savePeers, type StoredPeer, WireGuardStateError, wireguardStateDir } from './state.ts';

let dataDir: string;
const key = () => randomBytes(32).toString('base64');

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-wg-state-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function writePeersFile(content: string): Promise<void> {
  await mkdir(wireguardStateDir(dataDir), { recursive: true });
  await writeFile(peersFilePath(dataDir, 'wg0'), content);
}

describe('the peers file', () => {
  it('is empty when absent, and round-trips with mode 0600 and no temp files left', async () => {
    expect(await loadPeers(dataDir, 'wg0')).toEqual([]);
    const peers: StoredPeer[] = [
      { publicKey: key(), address: '10.8.0.2/32', identifier: 'a', userId: 1 },
      { publicKey: key(), address: '10.8.0.3/32', identifier: 'b', userId: 2 },
    ];
    await savePeers(dataDir, 'wg0', peers);
    expect(await loadPeers(dataDir, 'wg0')).toEqual(peers);
    expect((await stat(peersFilePath(dataDir, 'wg0'))).mode & 0o777).toBe(0o600);
    await savePeers(dataDir, 'wg0', peers.slice(1));
    expect(await loadPeers(dataDir, 'wg0')).toEqual(peers.slice(1));
    expect(await readdir(wireguardStateDir(dataDir))).toEqual(['wg0.json']);
  });

  it('refuses a corrupt file with a clear error naming it, instead of crashing or guessing', async () => {
    await writePeersFile('{"peers": [');
    const error = await loadPeers(dataDir, 'wg0').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WireGuardStateError);
    expect((error as Error).message).toContain(peersFilePath(dataDir, 'wg0'));
    expect((error as Error).message).toMatch(/not valid JSON/);

    await writePeersFile('[]');
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(/no "peers" list/);
    await writePeersFile('null');
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(/no "peers" list/);
    await writePeersFile(JSON.stringify({ peers: [{ publicKey: 'short', address: '10.8.0.2/32', identifier: 'x', userId: 1 }] }));
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(/peers\[0\] has no valid publicKey/);
    await writePeersFile(JSON.stringify({ peers: [{ publicKey: key(), address: '10.8.0.2', identifier: 'x', userId: 1 }] }));
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(/peers\[0\] has no valid address/);
    await writePeersFile(JSON.stringify({ peers: ['x'] }));
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(WireGuardStateError);
    const same = key();
    await writePeersFile(
      JSON.stringify({
        peers: [
          { publicKey: same, address: '10.8.0.2/32', identifier: 'x', userId: 1 },
          { publicKey: same, address: '10.8.0.3/32', identifier: 'y', userId: 1 },
        ],
      }),
    );
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(/twice/);
    await writePeersFile(
      JSON.stringify({
        peers: [
          { publicKey: key(), address: '10.8.0.2/32', identifier: 'x', userId: 1 },
          { publicKey: key(), address: '10.8.0.2/32', identifier: 'y', userId: 1 },
        ],
      }),
    );
    await expect(loadPeers(dataDir, 'wg0')).rejects.toThrow(/two peers/);
  });
});

describe('the server key', () => {
  it('is made once, kept with mode 0600 and read back', async () => {
    let made = 0;
    const generate = () => {
      made += 1;
      return generateWireGuardKeyPair().privateKey;
    };
    const first = await loadOrCreatePrivateKey(dataDir, 'wg0', generate);
    expect(await loadOrCreatePrivateKey(dataDir, 'wg0', generate)).toBe(first);
    expect(made).toBe(1);
    expect((await readFile(keyFilePath(dataDir, 'wg0'), 'utf8')).trim()).toBe(first);
    expect((await stat(keyFilePath(dataDir, 'wg0'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a key file without a key instead of replacing it', async () => {
    await mkdir(wireguardStateDir(dataDir), { recursive: true });
    await writeFile(keyFilePath(dataDir, 'wg0'), 'garbage\n');
    await expect(loadOrCreatePrivateKey(dataDir, 'wg0', () => generateWireGuardKeyPair().privateKey)).rejects.toThrow(WireGuardStateError);
    expect(await readFile(keyFilePath(dataDir, 'wg0'), 'utf8')).toBe('garbage\n');
  });
});

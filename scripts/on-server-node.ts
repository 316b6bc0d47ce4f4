/*
 * `tsx scripts/on-server-node.ts COMMAND [ARGS…]`: runs COMMAND on the release bundle's Node 24,
 * with that Node first on PATH (so `tsx`, `vitest` and every `node` they start are Node 24 too).
 * The npm scripts of the command-line tools (`npm run seed`, `npm run admin`, `npm run test:ops`,
 * …) go through it, as `npm start` and `npm test` run themselves there (scripts/lib/server-node.ts).
 */
import { spawn } from 'node:child_process';
import { runOnServerNode } from './lib/server-node.ts';

await runOnServerNode();

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: tsx scripts/on-server-node.ts COMMAND [ARGS…]');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.once('error', (error) => {
  console.error(`could not run ${command}: ${error.message}`);
  process.exit(127);
});
child.once('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));

/*
 * `npm run build:servers`: bundles the control plane and the host agent (with the browser server
 * and the git runner the agent talks to) into plain JavaScript for `node`: control-plane/dist/main.js
 * (and the commands dist/cli/admin-cli.js, dist/db/migrate-cli.js), host-agent/dist/bin/agent.js,
 * host-agent/dist/bin/browser-server.js and host-agent/dist/bin/git-runner.js (scripts/lib/compile-servers.ts). Our own sources and the
 * workspace packages (@devplein/*: TypeScript only) go into the bundle. The control plane's npm
 * dependencies go in too, minified and tree-shaken (one module text instead of hundreds of
 * files: lodash alone, through objection, was 252), except those that cannot or need not be
 * (scripts/lib/server-bundle.ts); the agent's stay imports from node_modules. Run with plain
 * node, the servers skip tsx's loader and source-map support: less memory and a faster start
 * (bench/idle-memory.bench.ts measures both).
 */
import path from 'node:path';
import { compileServers } from './lib/compile-servers.ts';

for (const { workspace, entries } of await compileServers()) {
  console.log(`built ${workspace}/dist: ${entries.map((entry) => path.basename(entry, '.ts')).join(', ')}`);
}

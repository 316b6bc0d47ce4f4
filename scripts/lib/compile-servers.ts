/*
 * Compiles the servers (what `npm run build:servers` and `npm run release` run): the control
 * plane with its commands, and the host agent with the browser server and the git runner (each
 * run by a unit of its own in production), each into its
 * workspace's dist/ (or the same place in a release's folder). Hands back esbuild's metafile of each, which names the npm packages the
 * compiled JavaScript still imports (the release bundle ships exactly those).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { repoRoot } from './run.ts';
import { controlPlaneBuildOptions, hostAgentBuildOptions } from './server-bundle.ts';

export interface CompiledServer {
  /** The workspace folder: control-plane or host-agent. */
  workspace: 'control-plane' | 'host-agent';
  entries: string[];
  metafile: Metafile;
}

const servers: Array<{ workspace: CompiledServer['workspace']; entries: string[]; options: BuildOptions }> = [
  // admin-cli: `devplein admin` (the first admin without SQL), dist/cli/admin-cli.js;
  // migrate-cli: `devplein migrate` (an upgrade migrates before it starts), dist/db/migrate-cli.js;
  // agent-cli: `devplein agent invite|revoke|list` (dev servers joining), dist/cli/agent-cli.js;
  // backup-cli: `devplein backup` / `devplein restore` (docs/operations.md, Backups), dist/cli/backup-cli.js;
  // config-check: `devplein config check control-plane|soketi` (also the units' ExecStartPre), dist/cli/config-check.js.
  {
    workspace: 'control-plane',
    entries: ['control-plane/src/main.ts', 'control-plane/src/cli/admin-cli.ts', 'control-plane/src/cli/agent-cli.ts', 'control-plane/src/cli/backup-cli.ts', 'control-plane/src/cli/config-check.ts', 'control-plane/src/db/migrate-cli.ts'],
    options: controlPlaneBuildOptions,
  },
  // The agent's process entry points are together in src/bin/ (issue 37), so in dist/bin/:
  // agent: `devplein agent` (devplein-agent.service), dist/bin/agent.js;
  // browser-server: `devplein browser-server` (devplein-browser.service), dist/bin/browser-server.js;
  // git-runner: `devplein git-runner` (devplein-git.service, git deploys), dist/bin/git-runner.js;
  // cert-renew: `devplein agent renew` on a joined dev server (its certificate, without a new invitation), dist/bin/cert-renew.js;
  // config-check: `devplein config check agent` (also the agent unit's ExecStartPre), dist/bin/config-check.js.
  {
    workspace: 'host-agent',
    entries: ['host-agent/src/bin/agent.ts', 'host-agent/src/bin/browser-server.ts', 'host-agent/src/bin/git-runner.ts', 'host-agent/src/bin/cert-renew.ts', 'host-agent/src/bin/config-check.ts'],
    options: hostAgentBuildOptions,
  },
];

/** Compiles each server into `<outRoot>/<workspace>/dist` (the repository's own dist folders by default). */
export async function compileServers(outRoot = repoRoot): Promise<CompiledServer[]> {
  const compiled: CompiledServer[] = [];
  for (const { workspace, entries, options } of servers) {
    const outdir = path.join(outRoot, workspace, 'dist');
    await rm(outdir, { recursive: true, force: true });
    const result = await build({
      ...options,
      entryPoints: entries.map((entry) => path.join(repoRoot, entry)),
      outdir,
      // Keeps dist/main.js, dist/cli/admin-cli.js, dist/db/migrate-cli.js where they were with two entries.
      outbase: path.join(repoRoot, workspace, 'src'),
      metafile: true,
    });
    compiled.push({ workspace, entries, metafile: result.metafile });
  }
  return compiled;
}

import { execFile } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');

export interface AdminCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs control-plane/src/cli/admin-cli.ts as `npm run admin -- …` does, in a child process with these environment variables added. */
export function runAdminCli(args: string[], env: Record<string, string>): Promise<AdminCliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'control-plane/src/cli/admin-cli.ts', ...args],
      { cwd: root, env: { ...process.env, DEVPLEIN_DEBUG: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs control-plane/src/cli/agent-cli.ts as `devplein agent …` (`npm run agent-link -- …`) does, with these environment variables added. */
export function runAgentCli(args: string[], env: Record<string, string>): Promise<AdminCliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'control-plane/src/cli/agent-cli.ts', ...args],
      { cwd: root, env: { ...process.env, DEVPLEIN_DEBUG: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

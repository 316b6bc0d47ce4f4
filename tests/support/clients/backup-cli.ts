import { execFile } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');

export interface BackupCliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds of the child process (for the figures the test prints, never asserted). */
  ms: number;
}

/**
 * Runs control-plane/src/cli/backup-cli.ts as `npm run backup -- …` / `npm run restore -- …` do
 * (verb first), in a child process with only these settings added to the environment (DATABASE_URL,
 * DATA_DIR, AGENT_* of the caller's own environment are cleared first). `prefix` runs it under
 * another program (strace, for the test that reads every command line it starts).
 */
export function runBackupCli(args: string[], env: Record<string, string>, prefix: string[] = []): Promise<BackupCliRun> {
  const started = Date.now();
  // The machine's own /etc/devplein is never read (the command reads {role}.env there when DATABASE_URL / AGENT_* are unset).
  const base: NodeJS.ProcessEnv = { ...process.env, DEVPLEIN_DEBUG: '', DEVPLEIN_CONFIG_DIR: path.join(root, 'no-such-config-dir') };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'AGENT_MYSQL_URL', 'AGENT_DATA_DIR', 'BACKUP_ROLE', 'BACKUP_DIR', 'BACKUP_KEY_FILE', 'BACKUP_KEEP']) delete base[name];
  return new Promise((resolve) => {
    const [command, ...commandArgs] = [...prefix, process.execPath, '--import', 'tsx', '--conditions=development', 'control-plane/src/cli/backup-cli.ts', ...args];
    execFile(
      command!,
      commandArgs,
      { cwd: root, env: { ...base, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

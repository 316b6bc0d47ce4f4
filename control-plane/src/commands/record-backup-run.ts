import type { Knex } from 'knex';

/** What one finished run of `devplein backup` reports (migration 0013's backup_runs). */
export interface BackupRunRecord {
  role: 'control-plane';
  startedAt: Date;
  finishedAt: Date;
  ok: boolean;
  sizeBytes?: number | undefined;
  archivePath?: string | undefined;
  message?: string | undefined;
}

/**
 * Records a finished backup run. One insert at the end (not a row at the start that is updated):
 * the dump in the archive then holds exactly the rows of the moment it was made, and the status
 * page reads finished runs only.
 */
export async function recordBackupRun(knex: Knex, run: BackupRunRecord): Promise<void> {
  await knex('backup_runs').insert({
    role: run.role,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    ok: run.ok,
    size_bytes: run.sizeBytes ?? null,
    archive_path: run.archivePath ?? null,
    message: run.message ?? null,
  });
}

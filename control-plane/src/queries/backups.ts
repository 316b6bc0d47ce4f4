import type { Knex } from 'knex';

/** One run of `devplein backup` on the control plane, as migration 0013 stores it. */
export interface BackupRun {
  id: number;
  role: string;
  started_at: Date;
  finished_at: Date;
  ok: boolean;
  /** Bytes of the encrypted archive; null when the run failed before there was one. */
  size_bytes: number | null;
  archive_path: string | null;
  /** What went wrong (failed run) or a short summary (successful run). */
  message: string | null;
}

/** The latest run (the newest finished_at), successful or not; undefined when no backup ever ran. */
export async function latestBackupRun(knex: Knex): Promise<BackupRun | undefined> {
  const row = await knex<BackupRun>('backup_runs').orderBy([{ column: 'finished_at', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
  return row ? { ...row, size_bytes: row.size_bytes === null ? null : Number(row.size_bytes) } : undefined;
}

/** The latest successful run; undefined when none succeeded yet (the status page warns then). */
export async function latestSuccessfulBackupRun(knex: Knex): Promise<BackupRun | undefined> {
  const row = await knex<BackupRun>('backup_runs').where('ok', true).orderBy([{ column: 'finished_at', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
  return row ? { ...row, size_bytes: row.size_bytes === null ? null : Number(row.size_bytes) } : undefined;
}

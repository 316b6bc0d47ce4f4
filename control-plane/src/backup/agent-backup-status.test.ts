import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { agentBackupStatusSchema } from '@devplein/contract/backups';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAgentBackupStatus } from './agent-backup.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-backup-status-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const written = async () => agentBackupStatusSchema.parse(JSON.parse(await readFile(path.join(dataDir, 'backup-status.json'), 'utf8')));

describe('writeAgentBackupStatus', () => {
  it('records the last success: a run that succeeded is it, a failed one carries the one before over', async () => {
    await writeAgentBackupStatus(dataDir, { finishedAt: '2026-11-25T03:15:00.000Z', ok: false, sizeBytes: null, message: 'eerste keer mislukt' });
    expect((await written()).lastSuccessAt).toBeNull();
    await writeAgentBackupStatus(dataDir, { finishedAt: '2026-11-26T03:15:00.000Z', ok: true, sizeBytes: 10, message: 'klaar' });
    expect((await written()).lastSuccessAt).toBe('2026-11-26T03:15:00.000Z');
    await writeAgentBackupStatus(dataDir, { finishedAt: '2026-11-27T03:15:00.000Z', ok: false, sizeBytes: null, message: 'MariaDB antwoordt niet' });
    await writeAgentBackupStatus(dataDir, { finishedAt: '2026-11-28T03:15:00.000Z', ok: false, sizeBytes: null, message: 'MariaDB antwoordt niet' });
    expect(await written()).toMatchObject({ finishedAt: '2026-11-28T03:15:00.000Z', ok: false, lastSuccessAt: '2026-11-26T03:15:00.000Z' });
  });
});

/**
 * The control plane's operator gauges (control-plane/src/metrics/operator-gauges.ts) on a real
 * PostgreSQL: the backup runs the backup command records, the agent links' pinned certificates,
 * each read at scrape time, and the link CA and client certificate as the control plane loaded them.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordBackupRun } from '../../../control-plane/src/commands/record-backup-run.ts';
import { createControlPlaneMetrics } from '../../../control-plane/src/metrics/metrics.ts';
import { CONTROL_PLANE_VERSION, registerControlPlaneGauges } from '../../../control-plane/src/metrics/operator-gauges.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';

const run = promisify(execFile);
const silent = pino({ level: 'silent' });
let database: TestDatabase;
let dir: string;

/** The value of the sample line starting with `prefix` (name plus labels), or undefined. */
function value(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** A self-signed certificate of `days` days in `dir/name.pem`. */
async function certificate(name: string, days: number): Promise<string> {
  const file = path.join(dir, `${name}.pem`);
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', String(days), '-subj', `/CN=${name}`, '-keyout', path.join(dir, `${name}-key.pem`), '-out', file]);
  return file;
}

const daysLeft = (seconds: number | undefined) => ((seconds ?? 0) * 1000 - Date.now()) / 86_400_000;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-cp-gauges-'));
});

afterAll(async () => {
  await database?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the control plane operator gauges', () => {
  it('report the build, the backups of backup_runs, and the CA, client and pinned agent certificates', async () => {
    const [ca, client] = await Promise.all([certificate('ca', 3650), certificate('control-plane', 20)]);
    const now = Date.now();
    await database.knex('agent_links').insert([
      { name: 'dev2', address: 'dev2.school.nl:50051', site_domain: 'dev2.school.nl', status: 'active', origin: 'join', cert_not_after: new Date(now + 5 * 86_400_000) },
      { name: 'dev3', address: 'dev3.school.nl:50051', site_domain: 'dev3.school.nl', status: 'revoked', origin: 'join', cert_not_after: new Date(now + 9 * 86_400_000) },
      { name: 'dev4', address: 'dev4.school.nl:50051', site_domain: 'dev4.school.nl', status: 'active', origin: 'config', cert_not_after: null },
    ]);
    // The control plane's own registry (its prom-client, not the tests').
    const registry = createControlPlaneMetrics().registry;
    registerControlPlaneGauges(registry, { knex: database.knex, certificatePems: { ca: await readFile(ca), cert: await readFile(client) }, logger: silent, host: 'cp1' });
    const labels = '{role="control-plane",host="cp1"}';

    let text = await registry.metrics();
    expect(value(text, `devplein_build_info{version="${CONTROL_PLANE_VERSION}",node="${process.version}"}`)).toBe(1);
    expect(daysLeft(value(text, 'devplein_certificate_expiry_timestamp_seconds{certificate="ca",host=""}'))).toBeGreaterThan(3649);
    expect(daysLeft(value(text, 'devplein_certificate_expiry_timestamp_seconds{certificate="control-plane",host=""}'))).toBeCloseTo(20, 0);
    expect(daysLeft(value(text, 'devplein_certificate_expiry_timestamp_seconds{certificate="agent",host="dev2"}'))).toBeCloseTo(5, 1);
    // A revoked link and one that pins no certificate have no series.
    expect(text).not.toContain('host="dev3"');
    expect(text).not.toContain('host="dev4"');
    // No run recorded yet: never (0), and no last run.
    expect(value(text, `devplein_backup_last_success_timestamp_seconds${labels}`)).toBe(0);
    expect(text).not.toContain(`devplein_backup_last_run_success${labels}`);

    const night = new Date('2026-11-26T03:15:00.000Z');
    const nextNight = new Date('2026-11-27T03:15:00.000Z');
    await recordBackupRun(database.knex, { role: 'control-plane', startedAt: night, finishedAt: night, ok: true, sizeBytes: 100 });
    await recordBackupRun(database.knex, { role: 'control-plane', startedAt: nextNight, finishedAt: nextNight, ok: false, message: 'pg_dump faalde' });
    text = await registry.metrics();
    expect(value(text, `devplein_backup_last_success_timestamp_seconds${labels}`)).toBe(night.getTime() / 1000);
    expect(value(text, `devplein_backup_last_run_timestamp_seconds${labels}`)).toBe(nextNight.getTime() / 1000);
    expect(value(text, `devplein_backup_last_run_success${labels}`)).toBe(0);
  });

  it('answers a scrape in time without the database: the backups keep their last values, the certificates are still there', async () => {
    const [ca, client] = await Promise.all([certificate('ca2', 30), certificate('control-plane2', 30)]);
    const own = await createTestDatabase();
    const registry = createControlPlaneMetrics().registry;
    registerControlPlaneGauges(registry, { knex: own.knex, certificatePems: { ca: await readFile(ca), cert: await readFile(client) }, logger: silent, host: 'cp1', readTimeoutMs: 500 });
    const night = new Date('2026-11-26T03:15:00.000Z');
    await recordBackupRun(own.knex, { role: 'control-plane', startedAt: night, finishedAt: night, ok: true });
    expect(value(await registry.metrics(), 'devplein_backup_last_success_timestamp_seconds{role="control-plane",host="cp1"}')).toBe(night.getTime() / 1000);
    await own.destroy();
    const startedAt = Date.now();
    const text = await registry.metrics();
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(value(text, 'devplein_backup_last_success_timestamp_seconds{role="control-plane",host="cp1"}')).toBe(night.getTime() / 1000);
    expect(daysLeft(value(text, 'devplein_certificate_expiry_timestamp_seconds{certificate="ca",host=""}'))).toBeCloseTo(30, 0);
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_VERSION } from '../agent-version.ts';
import { registerAgentGauges } from './operator-gauges.ts';

const run = promisify(execFile);
let dir: string;
let certPem: string;

/** The value of the sample line starting with `prefix` (name plus labels), or undefined. */
function value(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-gauges-'));
  // A real certificate of 10 days, as openssl makes the link's (deploy/certs/make-certs.sh).
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '10', '-subj', '/CN=agent', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')]);
  certPem = await readFile(path.join(dir, 'cert.pem'), 'utf8');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the agent operator gauges', () => {
  it('report the build, the served certificate, and the backup status file as it is at each scrape', async () => {
    const registry = new Registry();
    registerAgentGauges(registry, { dataDir: dir, servedCertificatePem: certPem, host: 'dev-a' });
    const labels = '{role="agent",host="dev-a"}';

    let text = await registry.metrics();
    expect(value(text, `devplein_build_info{version="${AGENT_VERSION}",node="${process.version}"}`)).toBe(1);
    const daysLeft = ((value(text, 'devplein_certificate_expiry_timestamp_seconds{certificate="agent",host=""}') ?? 0) * 1000 - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(9.9);
    expect(daysLeft).toBeLessThanOrEqual(10);
    // No status file: no backup yet (0), no last run.
    expect(value(text, `devplein_backup_last_success_timestamp_seconds${labels}`)).toBe(0);
    expect(text).not.toContain(`devplein_backup_last_run_success${labels}`);

    const status = path.join(dir, 'backup-status.json');
    await writeFile(status, JSON.stringify({ finishedAt: '2026-11-26T03:15:42.000Z', ok: true, sizeBytes: 10, message: 'klaar', lastSuccessAt: '2026-11-26T03:15:42.000Z' }));
    text = await registry.metrics();
    const night = Date.parse('2026-11-26T03:15:42.000Z') / 1000;
    expect(value(text, `devplein_backup_last_success_timestamp_seconds${labels}`)).toBe(night);
    expect(value(text, `devplein_backup_last_run_timestamp_seconds${labels}`)).toBe(night);
    expect(value(text, `devplein_backup_last_run_success${labels}`)).toBe(1);

    // The next night failed: the last success stays the one before.
    await writeFile(status, JSON.stringify({ finishedAt: '2026-11-27T03:15:42.000Z', ok: false, sizeBytes: null, message: 'MariaDB antwoordt niet', lastSuccessAt: '2026-11-26T03:15:42.000Z' }));
    text = await registry.metrics();
    expect(value(text, `devplein_backup_last_success_timestamp_seconds${labels}`)).toBe(night);
    expect(value(text, `devplein_backup_last_run_timestamp_seconds${labels}`)).toBe(night + 86_400);
    expect(value(text, `devplein_backup_last_run_success${labels}`)).toBe(0);

    // A record that cannot be read is a failed run of unknown time (as on the status page).
    await writeFile(status, '{"ok": tru');
    text = await registry.metrics();
    expect(value(text, `devplein_backup_last_run_success${labels}`)).toBe(0);
    expect(value(text, `devplein_backup_last_success_timestamp_seconds${labels}`)).toBe(0);
    expect(text).not.toContain(`devplein_backup_last_run_timestamp_seconds${labels}`);
  });

  it('leaves the agent certificate out when what it serves cannot be parsed', async () => {
    const registry = new Registry();
    registerAgentGauges(registry, { dataDir: dir, servedCertificatePem: 'geen certificaat', host: 'dev-a' });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE devplein_certificate_expiry_timestamp_seconds gauge');
    expect(text).not.toContain('devplein_certificate_expiry_timestamp_seconds{');
  });
});

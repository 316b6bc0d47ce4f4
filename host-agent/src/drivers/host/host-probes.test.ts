import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPresence, certificateExpiry, diskUsage, lastBackup, ProbeTimeoutError, wireguardInterface, withTimeout } from './host-probes.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'host-probes-'));
  for (const [name, flags] of [
    ['wgup', '0x1091'],
    ['wgdown', '0x1090'],
  ] as const) {
    await mkdir(path.join(dir, 'net', name), { recursive: true });
    await writeFile(path.join(dir, 'net', name, 'flags'), `${flags}\n`);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('host probes', () => {
  it('reads a WireGuard interface as up, down or missing from its flags', async () => {
    const sysNet = path.join(dir, 'net');
    expect(await wireguardInterface('wgup', 1_000, sysNet)).toEqual({ ok: true, detail: 'interface wgup is up' });
    expect(await wireguardInterface('wgdown', 1_000, sysNet)).toEqual({ ok: false, detail: 'interface wgdown is down' });
    expect(await wireguardInterface('wgnone', 1_000, sysNet)).toEqual({ ok: false, detail: 'interface wgnone bestaat niet' });
  });

  it('measures a path not made yet at its nearest existing parent', async () => {
    const disk = await diskUsage('agent', path.join(dir, 'not', 'made', 'yet'), 1_000);
    expect(disk).toMatchObject({ name: 'agent', path: dir, ok: true, error: '' });
    expect(disk.availableBytes).toBeGreaterThan(0);
  });

  it('reports an unreadable certificate as not ok with the reason', async () => {
    await writeFile(path.join(dir, 'broken.pem'), 'not a certificate');
    const result = await certificateExpiry(path.join(dir, 'broken.pem'));
    expect(result.ok).toBe(false);
    expect(result.notAfter).toBeUndefined();
    expect(result.detail).toContain('niet te lezen');
  });

  it('says Chromium is missing when the binary is not there, and a browser server that does not answer', async () => {
    expect(await browserPresence({ server: undefined, chromiumPath: path.join(dir, 'chromium'), timeoutMs: 1_000 })).toMatchObject({ ok: false });
    const closed = await browserPresence({ server: '127.0.0.1:1', chromiumPath: '/usr/bin/chromium', timeoutMs: 1_000 });
    expect(closed.ok).toBe(false);
    expect(closed.detail).toMatch(/^browserserver op 127\.0\.0\.1:1 antwoordt niet/);
  });

  it("reads the last backup's status file: none, a run, or a record it cannot read (a failed backup, never 'none yet')", async () => {
    const dataDir = path.join(dir, 'agent-data');
    await mkdir(dataDir, { recursive: true });
    expect(await lastBackup(dataDir)).toEqual({ known: false, finishedAt: undefined, ok: false, sizeBytes: 0, message: '', lastSuccessAt: undefined });
    await writeFile(path.join(dataDir, 'backup-status.json'), JSON.stringify({ finishedAt: '2026-11-26T03:15:42.000Z', ok: true, sizeBytes: 204845, message: 'mysql: 3 bestand(en)' }));
    expect(await lastBackup(dataDir)).toEqual({
      known: true,
      finishedAt: new Date('2026-11-26T03:15:42.000Z'),
      ok: true,
      sizeBytes: 204845,
      message: 'mysql: 3 bestand(en)',
      lastSuccessAt: new Date('2026-11-26T03:15:42.000Z'),
    });
    // A failed run: the last success is the one it carries (none in files of older releases).
    await writeFile(path.join(dataDir, 'backup-status.json'), JSON.stringify({ finishedAt: '2026-11-27T03:15:42.000Z', ok: false, sizeBytes: null, message: 'MariaDB antwoordt niet' }));
    expect(await lastBackup(dataDir)).toMatchObject({ known: true, ok: false, sizeBytes: 0, message: 'MariaDB antwoordt niet', lastSuccessAt: undefined });
    await writeFile(
      path.join(dataDir, 'backup-status.json'),
      JSON.stringify({ finishedAt: '2026-11-27T03:15:42.000Z', ok: false, sizeBytes: null, message: 'MariaDB antwoordt niet', lastSuccessAt: '2026-11-26T03:15:42.000Z' }),
    );
    expect(await lastBackup(dataDir)).toMatchObject({ finishedAt: new Date('2026-11-27T03:15:42.000Z'), ok: false, lastSuccessAt: new Date('2026-11-26T03:15:42.000Z') });
    for (const broken of ['{"ok": tru', JSON.stringify({ ok: true })]) {
      await writeFile(path.join(dataDir, 'backup-status.json'), broken);
      expect(await lastBackup(dataDir)).toEqual({ known: true, finishedAt: undefined, ok: false, sizeBytes: 0, message: 'backup-status.json is geen geldige status', lastSuccessAt: undefined });
    }
  });

  it('gives up on work that does not finish within the limit', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(withTimeout(never, 20)).rejects.toBeInstanceOf(ProbeTimeoutError);
    await expect(withTimeout(Promise.resolve(7), 1_000)).resolves.toBe(7);
  });
});

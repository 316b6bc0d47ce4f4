/**
 * The gauges a sysadmin's alerts read (deploy/prometheus/devplein-alerts.yml), the same on the
 * control plane and the host agent: which release runs, when the last backup of a role
 * succeeded, and when each link certificate ends. Each process registers them on its own
 * prom-client registry with these definitions and fills them at scrape time from what it knows
 * (control-plane/src/metrics/operator-gauges.ts, host-agent/src/metrics/operator-gauges.ts);
 * server-kit itself does not depend on prom-client.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Labels and value of one sample. */
export interface GaugeSample {
  labels: Record<string, string>;
  value: number;
}

/** The part of a prom-client Gauge that refreshSamples uses. */
export interface SettableGauge {
  reset(): void;
  set(labels: Record<string, string>, value: number): void;
}

/** Name, help and labels of one gauge. */
export interface GaugeDefinition {
  name: string;
  help: string;
  labelNames: readonly string[];
}

/** Makes a gauge whose collect (run at each scrape) is `collect`. */
export type GaugeFactory = (definition: GaugeDefinition, collect: (gauge: SettableGauge) => Promise<void>) => void;

/** prom-client's Gauge class as gaugesOn needs it (each process passes its own prom-client's). */
export type GaugeClass<Registry> = new (configuration: GaugeDefinition & { registers: Registry[]; collect(this: SettableGauge): Promise<void> }) => unknown;

/** A GaugeFactory on `registry`: `gaugesOn(Gauge, registry)` with prom-client's Gauge. */
export function gaugesOn<Registry>(Gauge: GaugeClass<Registry>, registry: Registry): GaugeFactory {
  return (definition, collect) =>
    void new Gauge({
      ...definition,
      registers: [registry],
      collect() {
        return collect(this);
      },
    });
}

export const BUILD_INFO = {
  name: 'devplein_build_info',
  help: 'Always 1: the devplein release (DEVPLEIN_VERSION, else the package version) and the Node.js version this process runs.',
  labelNames: ['version', 'node'],
} as const;

export const BACKUP_LAST_SUCCESS = {
  name: 'devplein_backup_last_success_timestamp_seconds',
  help: 'Unix time the last successful `devplein backup` of this role finished; 0 when none succeeded yet (or none is recorded).',
  labelNames: ['role', 'host'],
} as const;

export const BACKUP_LAST_RUN = {
  name: 'devplein_backup_last_run_timestamp_seconds',
  help: 'Unix time the last `devplein backup` of this role finished, successful or not; absent when none ran yet.',
  labelNames: ['role', 'host'],
} as const;

export const BACKUP_LAST_RUN_SUCCESS = {
  name: 'devplein_backup_last_run_success',
  help: '1 when the last `devplein backup` of this role succeeded, 0 when it failed; absent when none ran yet.',
  labelNames: ['role', 'host'],
} as const;

export const CERTIFICATE_EXPIRY = {
  name: 'devplein_certificate_expiry_timestamp_seconds',
  help: 'Unix time a link certificate ends (notAfter): certificate = ca, control-plane (its client certificate) or agent (host = the dev server); absent when it cannot be read.',
  labelNames: ['certificate', 'host'],
} as const;

/**
 * The version of the package named `packageName`: the nearest package.json of that name above
 * the module at `from` (sources, the compiled dist/ and a release bundle's chunks alike; a bundle
 * writes the release's version there). '0.0.0' when there is none.
 */
export function packageVersion(from: string | URL, packageName: string): string {
  let dir = path.dirname(fileURLToPath(from));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === packageName) return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
    }
    const parent = path.dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}

/** The release this process belongs to: DEVPLEIN_VERSION when set, else its package's version. */
export function releaseVersion(packageVersion: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.DEVPLEIN_VERSION?.trim();
  return fromEnv ? fromEnv : packageVersion;
}

/** devplein_build_info's labels for this process. */
export function buildInfoLabels(version: string): Record<(typeof BUILD_INFO.labelNames)[number], string> {
  return { version, node: process.version };
}

/** What one process knows of a role's backups. */
export interface BackupState {
  role: 'control-plane' | 'agent';
  /** The machine the backups are made on (the archive manifest's `host` says the same). */
  host: string;
  /** The last successful run's end; null when none succeeded (or none is recorded). */
  lastSuccessAt: Date | null;
  /** The last run, successful or not (finishedAt null: its record is unreadable); null when none ran. */
  lastRun: { finishedAt: Date | null; ok: boolean } | null;
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** The samples of the three backup gauges for one role. */
export function backupSamples(state: BackupState): { lastSuccess: GaugeSample; lastRun: GaugeSample | null; lastRunSuccess: GaugeSample | null } {
  const labels = { role: state.role, host: state.host };
  return {
    lastSuccess: { labels, value: state.lastSuccessAt ? seconds(state.lastSuccessAt) : 0 },
    lastRun: state.lastRun?.finishedAt ? { labels, value: seconds(state.lastRun.finishedAt) } : null,
    lastRunSuccess: state.lastRun ? { labels, value: state.lastRun.ok ? 1 : 0 } : null,
  };
}

/** One certificate's end as the expiry gauge reports it. */
export interface CertificateEnd {
  certificate: 'ca' | 'control-plane' | 'agent';
  /** The dev server (the control plane's link name) of an agent certificate; '' otherwise. */
  host: string;
  notAfter: Date;
}

/** The end of the (first) certificate in `pem`; null when it cannot be parsed (the gauge then leaves it out). */
export function certificateEndOf(pem: string | Buffer, certificate: CertificateEnd['certificate'], host = ''): CertificateEnd | null {
  try {
    return { certificate, host, notAfter: new Date(new X509Certificate(pem).validTo) };
  } catch {
    return null;
  }
}

export function certificateSample(end: CertificateEnd): GaugeSample {
  return { labels: { certificate: end.certificate, host: end.host }, value: seconds(end.notAfter) };
}

/** Replaces every series of `gauge` by `samples` (a series no longer known goes away). */
export function refreshSamples(gauge: SettableGauge, samples: readonly GaugeSample[]): void {
  gauge.reset();
  for (const sample of samples) gauge.set(sample.labels, sample.value);
}

/**
 * `read()`, or undefined (after telling `onFailure` why) when it fails or takes longer than
 * `timeoutMs`: a scrape must answer in time, without the parts that could not be read, and never
 * fail as a whole.
 */
export async function readWithin<T>(read: () => Promise<T>, timeoutMs: number, onFailure: (error: unknown) => void): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`not read within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    onFailure(error);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `read` shared by every caller while one is in flight: prom-client asks all gauges of a scrape
 * at once, so the gauges filled from one source (a query, a file) read it once per scrape.
 */
export function sharedWhileInFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/** Where a process finds what the operator gauges report, each read at scrape time. */
export interface OperatorGaugeSources {
  /** releaseVersion(...) of this process. */
  version: string;
  /** The backups this process knows of; undefined (not readable now) keeps the last values. */
  backups: () => Promise<readonly BackupState[] | undefined>;
  /** The certificates this process knows of (one that cannot be read is left out). */
  certificates: () => Promise<readonly CertificateEnd[]>;
}

/** Registers devplein_build_info, the three backup gauges and the certificate gauge through `gauge`. */
export function registerOperatorGauges(gauge: GaugeFactory, sources: OperatorGaugeSources): void {
  const info = { labels: buildInfoLabels(sources.version), value: 1 };
  gauge(BUILD_INFO, async (target) => refreshSamples(target, [info]));
  const readBackups = sharedWhileInFlight(sources.backups);
  const backupGauge = (definition: GaugeDefinition, pick: (samples: ReturnType<typeof backupSamples>) => GaugeSample | null) =>
    gauge(definition, async (target) => {
      const states = await readBackups();
      if (!states) return;
      refreshSamples(target, states.map((state) => pick(backupSamples(state))).filter((sample): sample is GaugeSample => sample !== null));
    });
  backupGauge(BACKUP_LAST_SUCCESS, (samples) => samples.lastSuccess);
  backupGauge(BACKUP_LAST_RUN, (samples) => samples.lastRun);
  backupGauge(BACKUP_LAST_RUN_SUCCESS, (samples) => samples.lastRunSuccess);
  gauge(CERTIFICATE_EXPIRY, async (target) => refreshSamples(target, (await sources.certificates()).map(certificateSample)));
}

import type { CertificateJson, StatusLevel } from '@devplein/contract/status';
import { adminStatus } from '@devplein/contract/http/admin-status';
import { useEndpoint } from '../endpoints.ts';

/*
 * The admin status page (GET /api/admin/status): every dev server's health, refreshed every 30
 * seconds, and the Dutch words for what it shows, so the page and its tests share them.
 */

/** How often the page asks again while it is open. */
export const ADMIN_STATUS_REFRESH_MS = 30_000;

export function useAdminStatus() {
  return useEndpoint(adminStatus, {}, { refreshInterval: ADMIN_STATUS_REFRESH_MS, keepPreviousData: true });
}

const decimal = new Intl.NumberFormat('nl-NL', { maximumFractionDigits: 1 });
const UNITS = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** A size as people read it: '12,4 GB' (decimal units, as disk makers and `df -H` count). */
export function humanBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${decimal.format(unit === 0 ? Math.round(value) : value)} ${UNITS[unit]}`;
}

export const LEVEL_LABELS: Readonly<Record<StatusLevel, string>> = { ok: 'In orde', warning: 'Let op', bad: 'Fout' };

const dateFormat = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'medium', timeStyle: 'short' });

export const formatDate = (iso: string): string => dateFormat.format(new Date(iso));
export const formatDateTime = (iso: string): string => dateTimeFormat.format(new Date(iso));

/** 'Certificaat verloopt over 12 dagen', '… is verlopen', or 'geldig tot …' when far off. */
export function certificateText(certificate: CertificateJson): string {
  if (certificate.notAfter === null || certificate.daysLeft === null) return 'Certificaat niet te lezen';
  if (certificate.level === 'bad') return `Certificaat is verlopen op ${formatDate(certificate.notAfter)}`;
  if (certificate.level === 'warning') {
    if (certificate.daysLeft === 0) return 'Certificaat verloopt vandaag';
    return `Certificaat verloopt over ${certificate.daysLeft} ${certificate.daysLeft === 1 ? 'dag' : 'dagen'}`;
  }
  return `Certificaat geldig tot ${formatDate(certificate.notAfter)}`;
}

/** Docker's state words in Dutch, in the order the page lists them. */
export const CONTAINER_STATE_LABELS: ReadonlyArray<readonly [string, string]> = [
  ['running', 'actief'],
  ['paused', 'gepauzeerd'],
  ['restarting', 'herstartend'],
  ['created', 'aangemaakt'],
  ['exited', 'gestopt'],
  ['dead', 'defect'],
  ['removing', 'wordt verwijderd'],
];

/** '3 actief, 2 gestopt' (states with a count only; unknown states keep Docker's word). */
export function containerCountsText(byState: Record<string, number>): string {
  const known = new Map(CONTAINER_STATE_LABELS);
  const ordered = [
    ...CONTAINER_STATE_LABELS.map(([state]) => state).filter((state) => (byState[state] ?? 0) > 0),
    ...Object.keys(byState).filter((state) => !known.has(state) && (byState[state] ?? 0) > 0),
  ];
  if (ordered.length === 0) return 'geen';
  return ordered.map((state) => `${byState[state]} ${known.get(state) ?? state}`).join(', ');
}

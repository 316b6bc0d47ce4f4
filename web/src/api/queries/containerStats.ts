import { containerStats } from '@devplein/contract/http/user-dockers';
import { type LiveContainerStatsJson, MEMORY_WARNING_SHARE, STATS_POLL_MS } from '@devplein/contract/container-stats';
import { useEndpoint } from '../endpoints.ts';

/**
 * A running container's live use, polled every STATS_POLL_MS while its card is shown (SWR stops
 * polling when the card goes; the control plane serves every tab from one agent stream).
 */
export function useContainerStats(name: string) {
  return useEndpoint(containerStats, { params: { name } }, {
    refreshInterval: STATS_POLL_MS,
    keepPreviousData: true,
    revalidateOnFocus: false,
  });
}

const MB = 1024 * 1024;

/** "3", "0,4", "12" — one decimal below 10, none from 10 on. */
export function cpuText(percent: number): string {
  return new Intl.NumberFormat('nl-NL', { maximumFractionDigits: percent < 10 ? 1 : 0 }).format(percent);
}

/** Megabytes as `docker stats` counts them (MiB), "1,5 GB" from 1024 MB on. */
export function bytesText(bytes: number): string {
  const mb = bytes / MB;
  if (mb >= 1024) return `${new Intl.NumberFormat('nl-NL', { maximumFractionDigits: 1 }).format(mb / 1024)} GB`;
  return `${new Intl.NumberFormat('nl-NL', { maximumFractionDigits: mb < 10 ? 1 : 0 }).format(mb)} MB`;
}

export const cpuLine = (stats: Pick<LiveContainerStatsJson, 'cpuPercent'>): string => `CPU ${cpuText(stats.cpuPercent)} %`;

export const memoryLine = (stats: Pick<LiveContainerStatsJson, 'memoryUsedBytes' | 'memoryLimitBytes'>): string =>
  `Geheugen ${bytesText(stats.memoryUsedBytes)} van ${bytesText(stats.memoryLimitBytes)}`;

/** Share of the limit in use (0 without a limit). */
export const memoryShare = (stats: Pick<LiveContainerStatsJson, 'memoryUsedBytes' | 'memoryLimitBytes'>): number =>
  stats.memoryLimitBytes > 0 ? stats.memoryUsedBytes / stats.memoryLimitBytes : 0;

/** The warning near the limit; null below MEMORY_WARNING_SHARE. */
export function memoryWarning(stats: Pick<LiveContainerStatsJson, 'memoryUsedBytes' | 'memoryLimitBytes'>): string | null {
  const share = memoryShare(stats);
  if (share < MEMORY_WARNING_SHARE) return null;
  return `Let op: je container gebruikt ${Math.round(share * 100)} % van zijn geheugen. Raakt het vol, dan stopt Docker je container.`;
}

/** What happened when the kernel stopped the container for memory; null when it did not. */
export function oomText(stats: Pick<LiveContainerStatsJson, 'oomKilled' | 'restartCount'>): string | null {
  if (!stats.oomKilled) return null;
  const restarts = stats.restartCount > 0 ? ` (${stats.restartCount} keer herstart)` : '';
  return `${OOM_STOPPED}${restarts}. Docker heeft hem weer gestart; kijk in de logs wat zoveel geheugen gebruikte.`;
}

const OOM_STOPPED = 'Je container is gestopt omdat het geheugen vol was';

/** What an exited card says after an OOM kill (Docker did not start it again); null after any other exit. */
export function exitedOomText(exit: { oomKilled: boolean } | null): string | null {
  if (!exit?.oomKilled) return null;
  return `${OOM_STOPPED}. Kijk in de logs wat zoveel geheugen gebruikte, en start hem daarna opnieuw.`;
}

/** The text alternative of one sparkline: range and now, over the last minutes. */
export function sparklineLabel(what: string, values: number[], format: (value: number) => string): string {
  if (values.length === 0) return `${what}: nog geen metingen`;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const now = values[values.length - 1] ?? 0;
  return `${what} de laatste 5 minuten: tussen ${format(low)} en ${format(high)}, nu ${format(now)}`;
}

/** Memory readings of running processes for benchmarks (Linux /proc). */
import { readdir, readFile } from 'node:fs/promises';

export interface ProcessMemory {
  /** Resident set size now, MB. */
  rssMb: number;
  /** Highest resident set size so far (VmHWM), MB. */
  peakMb: number;
}

const MB = 1024 * 1024;

/** RSS now and at its peak; undefined when the process is gone. */
export async function processMemory(pid: number | undefined): Promise<ProcessMemory | undefined> {
  if (!pid) return undefined;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  if (!status) return undefined;
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** Proportional set size (shared pages split among their users) of one process, MB. */
async function pssMb(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
}

/** The pids of every process below `root` (children, their children, ...), from /proc/PID/stat. */
async function descendants(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * The Chromium processes below `root` (the agent: its browser server's or its own browsers,
 * their renderers, GPU and zygote processes): how many and their summed PSS, MB. Chromium shares
 * most of its pages among its processes: RSS would count them many times.
 */
export async function chromiumMemory(root: number | undefined): Promise<{ processes: number; pssMb: number }> {
  let processes = 0;
  let total = 0;
  if (!root) return { processes, pssMb: 0 };
  for (const pid of await descendants(root)) {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const program = commandLine.split('\0')[0] ?? '';
    if (!/\/(chromium|chrome|chrome_crashpad_handler)$/.test(program)) continue;
    processes++;
    total += await pssMb(pid);
  }
  return { processes, pssMb: Math.round(total) };
}

/** heapUsed and external+arrayBuffers of a process from its Prometheus /metrics (prom-client's defaults), MB. */
export async function heapFromMetrics(metricsUrl: string): Promise<{ heapUsedMb: number; externalMb: number } | undefined> {
  const text = await fetch(metricsUrl)
    .then((response) => (response.ok ? response.text() : ''))
    .catch(() => '');
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? NaN);
  const heapUsed = value('nodejs_heap_size_used_bytes');
  if (Number.isNaN(heapUsed)) return undefined;
  return { heapUsedMb: Math.round(heapUsed / MB), externalMb: Math.round(value('nodejs_external_memory_bytes') / MB) };
}

/** "123 MB (peak 150 MB)" or "gone". */
export function describeMemory(memory: ProcessMemory | undefined): string {
  return memory ? `${memory.rssMb} MB (peak ${memory.peakMb} MB)` : 'gone';
}

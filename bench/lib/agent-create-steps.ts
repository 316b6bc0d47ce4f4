/**
 * Where the agent's time goes in a burst, from its pino JSON lines: the median and slowest of
 * each step of 'created a project container' (its `steps`, see host-agent/src/step-times.ts)
 * and of each gRPC method's `durationMs` ('call' lines). Lines that are not JSON are skipped.
 */
interface LogLine {
  msg?: unknown;
  steps?: unknown;
  method?: unknown;
  durationMs?: unknown;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

function summary(byName: Map<string, number[]>): string[] {
  return [...byName].map(([name, values]) => `${name} ${median(values).toFixed(0)}/${Math.max(...values).toFixed(0)}`);
}

/** Two lines ("steps: … ms median/max", "calls: …") of the agent output `text`. */
export function agentCreateSteps(text: string): string[] {
  const steps = new Map<string, number[]>();
  const calls = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, name: string, value: number) => map.set(name, [...(map.get(name) ?? []), value]);
  for (const line of text.split('\n')) {
    let entry: LogLine;
    try {
      entry = JSON.parse(line) as LogLine;
    } catch {
      continue;
    }
    if (entry.msg === 'created a project container' && entry.steps && typeof entry.steps === 'object') {
      for (const [name, value] of Object.entries(entry.steps)) if (typeof value === 'number') add(steps, name, value);
    }
    if (entry.msg === 'call' && typeof entry.method === 'string' && typeof entry.durationMs === 'number') {
      add(calls, entry.method.replace(/^.*\//, ''), entry.durationMs);
    }
  }
  return [`agent create steps (ms median/max): ${summary(steps).join(', ') || 'none logged'}`, `agent calls (ms median/max): ${summary(calls).join(', ') || 'none logged'}`];
}

import type { ContainerStatsJson, LiveContainerStatsJson } from '@devplein/contract/container-stats';
import { bytesText, cpuLine, cpuText, memoryLine, memoryShare, memoryWarning, oomText, sparklineLabel } from '../../api/queries/containerStats.ts';

const WIDTH = 120;
const HEIGHT = 28;

/** Points of an SVG polyline for `values` between 0 and `max`, oldest left. */
export function sparklinePoints(values: number[], max: number): string {
  if (values.length === 0) return '';
  const top = max > 0 ? max : 1;
  const step = values.length > 1 ? WIDTH / (values.length - 1) : 0;
  return values
    .map((value, index) => {
      const x = values.length > 1 ? index * step : WIDTH;
      const y = HEIGHT - 1 - (Math.min(Math.max(value, 0), top) / top) * (HEIGHT - 2);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

function Sparkline({ values, max, label, tone, testId }: { values: number[]; max: number; label: string; tone: string; testId: string }) {
  const points = sparklinePoints(values.length === 1 ? [values[0] ?? 0, values[0] ?? 0] : values, max);
  return (
    <svg className={`stats-sparkline stats-sparkline-${tone}`} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={label} data-testid={testId} data-points={values.length}>
      <title>{label}</title>
      {points !== '' && <polyline points={points} fill="none" strokeWidth="1.5" vectorEffect="non-scaling-stroke" />}
    </svg>
  );
}

/** The history plus the current sample when it is newer than the last point. */
function series(stats: LiveContainerStatsJson): Array<{ cpu: number; memory: number }> {
  const points = stats.history.map((point) => ({ at: point.at, cpu: point.cpuPercent, memory: point.memoryUsedBytes }));
  if (points.at(-1)?.at !== stats.readAt) points.push({ at: stats.readAt, cpu: stats.cpuPercent, memory: stats.memoryUsedBytes });
  return points;
}

/** A running card's live use (issue 22): sparklines of CPU and memory, the values, warnings. */
export function ContainerStatsView({ stats }: { stats: ContainerStatsJson | undefined }) {
  if (stats === undefined || stats.status === 'starting') {
    return (
      <p className="stats-waiting muted" data-testid="docker-stats-waiting">
        Gebruik ophalen…
      </p>
    );
  }
  if (stats.status !== 'live') {
    if (stats.status !== 'failed') return null;
    return (
      <p className="stats-waiting muted" data-testid="docker-stats-failed">
        Het gebruik van je container is nu niet te zien.
      </p>
    );
  }
  const points = series(stats);
  const cpu = points.map((point) => point.cpu);
  const memory = points.map((point) => point.memory);
  const warning = memoryWarning(stats);
  const oom = oomText(stats);
  const share = memoryShare(stats);
  return (
    <section className="docker-stats" aria-label="Gebruik van je container" data-testid="docker-stats" data-read-at={stats.readAt}>
      <div className="stats-row">
        <span className="stats-value" data-testid="docker-stats-cpu">
          {cpuLine(stats)}
        </span>
        <Sparkline values={cpu} max={Math.max(100, ...cpu)} label={sparklineLabel('CPU', cpu, (value) => `${cpuText(value)} %`)} tone="cpu" testId="docker-stats-cpu-line" />
      </div>
      <div className="stats-row">
        <span className={share >= 0.9 ? 'stats-value stats-value-high' : 'stats-value'} data-testid="docker-stats-memory">
          {memoryLine(stats)}
        </span>
        <Sparkline values={memory} max={stats.memoryLimitBytes} label={sparklineLabel('Geheugen', memory, bytesText)} tone="memory" testId="docker-stats-memory-line" />
      </div>
      {warning !== null && (
        <p className="docker-notice stats-warning" role="status" data-testid="docker-stats-warning">
          {warning}
        </p>
      )}
      {oom !== null && (
        <p className="docker-alert" role="status" data-testid="docker-stats-oom">
          {oom}
        </p>
      )}
    </section>
  );
}

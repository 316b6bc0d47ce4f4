import type { ServerTopContainersJson, TopContainerJson } from '@devplein/contract/overview';
import { bytesText, cpuText } from '../../api/queries/containerStats.ts';
import { formatDateTime } from '../../api/queries/status.ts';

interface TopListProps {
  title: string;
  entries: TopContainerJson[];
  /** The bar's share of the list's longest bar (0–1) and the value as text. */
  value: (entry: TopContainerJson) => number;
  text: (entry: TopContainerJson) => string;
  testId: string;
  tone: 'cpu' | 'memory';
}

/** Who a container is: the project (and its owner) when devplein knows it, else its name. */
function who(entry: TopContainerJson): string {
  if (!entry.project) return entry.name;
  return entry.owner ? `${entry.project.name} (${entry.owner.name})` : entry.project.name;
}

/** A ranked list with a horizontal bar per container; the values are text, so the list is its own text alternative. */
function TopList({ title, entries, value, text, testId, tone }: TopListProps) {
  const max = Math.max(0, ...entries.map(value));
  return (
    <div className="top-list" data-testid={testId}>
      <h3 className="chart-title">{title}</h3>
      {entries.length === 0 ? (
        <p className="overview-empty">Er draait nu geen container.</p>
      ) : (
        <ol className="top-list-items">
          {entries.map((entry) => (
            <li key={entry.name} className="top-list-item" data-testid="top-container">
              <span className="top-list-name" title={entry.project ? `${entry.project.domain} · container ${entry.name}` : `container ${entry.name}`}>
                {who(entry)}
              </span>
              <span className="top-list-value">{text(entry)}</span>
              <span className={`top-list-bar top-list-bar-${tone}`} aria-hidden="true">
                <span style={{ width: `${max > 0 ? Math.max(1, (value(entry) / max) * 100) : 0}%` }} />
              </span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

const UNAVAILABLE: Record<Exclude<ServerTopContainersJson['status'], 'ok'>, string> = {
  unavailable: 'De agent van deze dev server antwoordt nu niet: geen containers te zien.',
  'too-old': 'De agent van deze dev server is te oud om het gebruik per container te geven.',
};

/** Per dev server the 10 running containers using the most CPU and the most memory now (refreshed every 15 s). */
export function TopContainers({ top }: { top: ServerTopContainersJson | undefined }) {
  if (!top) return null;
  return (
    <section className="overview-top" aria-label={`Containers van ${top.name} met het meeste gebruik nu`} data-testid={`overview-top-${top.name}`}>
      {top.status !== 'ok' ? (
        <p className="overview-empty" data-testid="overview-top-unavailable">
          {UNAVAILABLE[top.status]}
        </p>
      ) : (
        <>
          <div className="overview-grid">
            <TopList
              title="Meeste CPU nu"
              entries={top.byCpu}
              value={(entry) => entry.cpuPercent}
              text={(entry) => `${cpuText(entry.cpuPercent)} % CPU`}
              testId="top-cpu"
              tone="cpu"
            />
            <TopList
              title="Meeste geheugen nu"
              entries={top.byMemory}
              value={(entry) => entry.memoryUsedBytes}
              text={(entry) => `${bytesText(entry.memoryUsedBytes)} van ${bytesText(entry.memoryLimitBytes)}`}
              testId="top-memory"
              tone="memory"
            />
          </div>
          <p className="overview-muted top-list-note">
            {top.running === 1 ? '1 container draait' : `${top.running} containers draaien`}; gemeten {top.sampledAt ? formatDateTime(top.sampledAt) : ''}, elke 15 seconden opnieuw. CPU
            in procenten van één kern (200 % is twee kernen vol).
          </p>
        </>
      )}
    </section>
  );
}

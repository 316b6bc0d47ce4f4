import type { OverviewAutoStopsJson, OverviewCohortsJson, OverviewHostsJson, OverviewServerJson, OverviewTopContainersJson, ServerTopContainersJson } from '@devplein/contract/overview';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { Chart } from '../../components/charts/Chart.tsx';
import { formatNumber, type ChartSpec } from '../../components/charts/chartSpec.ts';
import { formatDateTime } from '../../api/queries/status.ts';
import { seriesSummary } from '../../api/queries/overview.ts';
import {
  autoStopsChart,
  cohortsChart,
  containersNowChart,
  diskChart,
  loadChart,
  memoryChart,
  shortDate,
} from './overviewCharts.ts';
import { TopContainers } from './TopContainers.tsx';

export interface Loaded<T> {
  data: T | undefined;
  failed: boolean;
  loading: boolean;
}

export interface AdminOverviewPageViewProps {
  hosts: Loaded<OverviewHostsJson>;
  autoStops: Loaded<OverviewAutoStopsJson>;
  cohorts: Loaded<OverviewCohortsJson>;
  /** Live: per dev server its top containers by CPU and memory (GET /api/admin/overview/top-containers). */
  topContainers: Loaded<OverviewTopContainersJson>;
}

const orDash = (value: number | null, format: (value: number) => string): string => (value === null ? '–' : format(value));

/** The text alternative of a time chart: per line the latest, lowest, average and highest value. */
function SeriesSummaryTable({ spec, caption }: { spec: ChartSpec; caption: string }) {
  const format = spec.formatY ?? formatNumber;
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Reeks</th>
          <th scope="col">Laatste</th>
          <th scope="col">Laagste</th>
          <th scope="col">Gemiddeld</th>
          <th scope="col">Hoogste</th>
        </tr>
      </thead>
      <tbody>
        {spec.series.map((series) => {
          const summary = seriesSummary(series.values);
          return (
            <tr key={series.label}>
              <th scope="row">{series.label}</th>
              <td>{orDash(summary.latest, format)}</td>
              <td>{orDash(summary.min, format)}</td>
              <td>{orDash(summary.average, format)}</td>
              <td>{orDash(summary.max, format)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The text alternative of a bar chart: every category with every series' value and the total. */
function BarsTable({ spec, caption, categoryHeader }: { spec: ChartSpec; caption: string; categoryHeader: string }) {
  const categories = spec.categories ?? [];
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{categoryHeader}</th>
          {spec.series.map((series) => (
            <th scope="col" key={series.label}>
              {series.label}
            </th>
          ))}
          <th scope="col">Totaal</th>
        </tr>
      </thead>
      <tbody>
        {categories.map((category, index) => (
          <tr key={category}>
            <th scope="row">{category}</th>
            {spec.series.map((series) => (
              <td key={series.label}>{series.values[index] ?? 0}</td>
            ))}
            <td>{spec.series.reduce((sum, series) => sum + (series.values[index] ?? 0), 0)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ServerCharts({ server, top, topFailed }: { server: OverviewServerJson; top: ServerTopContainersJson | undefined; topFailed: boolean }) {
  const samples = server.series.times.length;
  return (
    <section className="card overview-server" data-testid={`overview-server-${server.name}`} aria-labelledby={`overview-server-${server.name}-title`}>
      <header className="overview-server-header">
        <h2 id={`overview-server-${server.name}-title`}>{server.name}</h2>
        <p className="overview-muted">
          {server.siteDomain} · {samples === 1 ? '1 meting' : `${samples} metingen`} in de laatste 24 uur
        </p>
      </header>
      {samples === 0 ? (
        <p className="overview-empty" data-testid="overview-no-samples">
          Nog geen metingen van deze dev server in de laatste 24 uur. De control plane meet elke minuut zolang de agent antwoordt.
        </p>
      ) : (
        <div className="overview-grid">
          <Chart
            title="Processorbelasting per kern, laatste 24 uur"
            note="Load-gemiddelde over 1 minuut gedeeld door het aantal kernen: 1 betekent dat alle kernen bezig zijn. Geen CPU-percentage."
            spec={loadChart(server)}
            testId="chart-load"
            alternative={<SeriesSummaryTable spec={loadChart(server)} caption={`Processorbelasting per kern van ${server.name}, laatste 24 uur`} />}
          />
          <Chart
            title="Geheugen, laatste 24 uur"
            spec={memoryChart(server)}
            testId="chart-memory"
            alternative={<SeriesSummaryTable spec={memoryChart(server)} caption={`Geheugen van ${server.name} in GB, laatste 24 uur`} />}
          />
          <Chart
            title="Vrije schijfruimte, laatste 24 uur"
            spec={diskChart(server)}
            testId="chart-disk"
            alternative={<SeriesSummaryTable spec={diskChart(server)} caption={`Vrije schijfruimte van ${server.name} in GB, laatste 24 uur`} />}
          />
        </div>
      )}
      {topFailed && !top ? (
        <p className="overview-empty">De containers met het meeste gebruik konden niet worden geladen. De pagina probeert het over 15 seconden opnieuw.</p>
      ) : (
        <TopContainers top={top} />
      )}
    </section>
  );
}

function ContainersNow({ servers }: { servers: OverviewServerJson[] }) {
  const spec = containersNowChart(servers);
  const times = servers.flatMap((server) => (server.containersNow ? [`${server.name}: ${formatDateTime(server.containersNow.sampledAt)}`] : []));
  const withoutCounts = servers.filter((server) => !server.containersNow).map((server) => server.name);
  return (
    <section className="card overview-section" aria-labelledby="overview-containers-title">
      <h2 id="overview-containers-title" className="visually-hidden">
        Containers nu
      </h2>
      <Chart
        title="Containers per status, nu"
        spec={spec}
        testId="chart-containers"
        note={
          <>
            {times.length > 0 ? `Stand van de laatste meting (${times.join('; ')}).` : 'Nog geen meting.'}
            {withoutCounts.length > 0 ? ` Geen telling van ${withoutCounts.join(', ')}.` : ''}
          </>
        }
        alternative={<BarsTable spec={spec} caption="Containers per status per dev server" categoryHeader="Dev server" />}
      />
    </section>
  );
}

/** /admin/overzicht: the teachers' charts (issue 22), per dev server with its top 10 containers by CPU and memory now. */
export function AdminOverviewPageView({ hosts, autoStops, cohorts, topContainers }: AdminOverviewPageViewProps) {
  return (
    <div className="page admin-page overview-page" data-testid="admin-overview-page">
      <h1>Overzicht</h1>
      <p className="overview-intro">
        Wat de dev servers doen: containers per status, belasting, geheugen en schijf van de laatste 24 uur (een meting per minuut) en de containers die nu het
        meeste CPU en geheugen gebruiken. Daaronder de automatische
        stops van ongebruikte containers en de projecten per klas.
      </p>
      <AsyncContent
        data={hosts.data}
        failed={hosts.failed}
        loading={hosts.loading}
        errorText="De metingen van de dev servers konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Metingen laden…"
        isEmpty={(data) => data.servers.length === 0}
        empty="Er is nog geen dev server gekoppeld."
      >
        {(data) => (
          <>
            <ContainersNow servers={data.servers} />
            {data.servers.map((server) => (
              <ServerCharts
                server={server}
                key={server.name}
                top={topContainers.data?.servers.find((top) => top.name === server.name)}
                topFailed={topContainers.failed}
              />
            ))}
          </>
        )}
      </AsyncContent>

      <section className="card overview-section" aria-labelledby="overview-auto-stops-title">
        <h2 id="overview-auto-stops-title" className="visually-hidden">
          Automatische stops
        </h2>
        <AsyncContent
          data={autoStops.data}
          failed={autoStops.failed}
          loading={autoStops.loading}
          errorText="De automatische stops konden niet worden geladen. Probeer het later opnieuw."
          loadingText="Automatische stops laden…"
          errorClassName="error-text"
        >
          {(data) => {
            const spec = autoStopsChart(data);
            return (
              <Chart
                title="Automatisch gestopte containers per dag, laatste 30 dagen"
                note={`Containers die de agent stopte omdat niemand de site bezocht (niet verwijderd). In totaal ${data.total}.`}
                spec={spec}
                testId="chart-auto-stops"
                alternative={
                  <BarsTable
                    spec={{ ...spec, categories: data.days.map((day) => shortDate(day.date)) }}
                    caption="Automatisch gestopte containers per dag en dev server"
                    categoryHeader="Dag"
                  />
                }
              />
            );
          }}
        </AsyncContent>
      </section>

      <section className="card overview-section" aria-labelledby="overview-cohorts-title">
        <h2 id="overview-cohorts-title" className="visually-hidden">
          Projecten per klas
        </h2>
        <AsyncContent
          data={cohorts.data}
          failed={cohorts.failed}
          loading={cohorts.loading}
          errorText="De projecten per klas konden niet worden geladen. Probeer het later opnieuw."
          loadingText="Projecten laden…"
          isEmpty={(data) => data.cohorts.length === 0}
          empty="Er zijn nog geen projecten."
          errorClassName="error-text"
          emptyClassName="page-message"
        >
          {(data) => {
            const spec = cohortsChart(data);
            return (
              <Chart
                title="Projecten per klas"
                note="Een project telt bij de klas van zijn eerste lid, zoals op de websitespagina."
                spec={spec}
                testId="chart-cohorts"
                alternative={<BarsTable spec={spec} caption="Projecten per klas" categoryHeader="Klas" />}
              />
            );
          }}
        </AsyncContent>
      </section>
    </div>
  );
}

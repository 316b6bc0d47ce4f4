import { lazy, Suspense, type ReactNode } from 'react';
import type { ChartSpec } from './chartSpec.ts';

// uPlot loads here, on first render of a chart: never in the main bundle or a student's page.
const UPlotChart = lazy(() => import('./UPlotChart.tsx').then((module) => ({ default: module.UPlotChart })));

/**
 * One chart: a Dutch title, the drawing (uPlot draws the axes with their titles and units on
 * its canvas, hidden from screen readers) and its text alternative (`alternative`: a table or
 * summary, visually hidden). The axis titles are also on the figure (data-x-label, data-y-label).
 */
export function Chart({ title, spec, alternative, testId, note }: { title: string; spec: ChartSpec; alternative: ReactNode; testId: string; note?: ReactNode }) {
  return (
    <figure className="chart" data-testid={testId} data-x-label={spec.xLabel} data-y-label={spec.yLabel}>
      <figcaption className="chart-title">{title}</figcaption>
      {note ? <p className="chart-note">{note}</p> : null}
      <Suspense
        fallback={
          <p className="chart-loading" role="status">
            Grafiek laden…
          </p>
        }
      >
        <UPlotChart spec={spec} />
      </Suspense>
      <div className="visually-hidden">{alternative}</div>
    </figure>
  );
}

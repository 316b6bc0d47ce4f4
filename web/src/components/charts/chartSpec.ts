/**
 * What a chart shows, without the chart library: pages build a ChartSpec (cheap, in their own
 * chunk) and hand it to <Chart> (components/charts/Chart.tsx), which loads uPlot only then.
 */

export interface ChartSeries {
  label: string;
  /** A CSS colour. */
  color: string;
  /** One value per x; null is a gap (no sample that minute). */
  values: ReadonlyArray<number | null>;
}

export interface ChartSpec {
  /**
   * 'time': x is Unix seconds, lines; 'bars': x are categories (`categories`), bars, stacked
   * when `stacked` (each category's bar is the sum of its series, in series order from the bottom).
   */
  kind: 'time' | 'bars';
  /** For 'time': Unix seconds of each value. */
  times?: readonly number[];
  /** For 'bars': the label of each category. */
  categories?: readonly string[];
  series: readonly ChartSeries[];
  stacked?: boolean;
  /** The x axis' title with its unit, e.g. 'Tijd (uu:mm)'. */
  xLabel: string;
  /** The y axis' title with its unit, e.g. 'Geheugen (GB)'. */
  yLabel: string;
  /** How a y value reads on the axis and in the legend (default: Dutch number). */
  formatY?: (value: number) => string;
  /** Lowest top of the y axis (e.g. 1 for load per core), so a quiet host does not look busy. */
  minYMax?: number;
  height?: number;
}

const decimal = new Intl.NumberFormat('nl-NL', { maximumFractionDigits: 2 });
export const formatNumber = (value: number): string => decimal.format(value);

/** Seconds between two samples beyond which the line breaks (the samples are a minute apart). */
const GAP_SECONDS = 150;

/** A null point in every column where samples are missing, so uPlot breaks the lines there instead of joining them. */
export function withGaps(times: readonly number[], columns: ReadonlyArray<ReadonlyArray<number | null>>): { times: number[]; columns: Array<Array<number | null>> } {
  const outTimes: number[] = [];
  const outColumns: Array<Array<number | null>> = columns.map(() => []);
  times.forEach((time, index) => {
    const previous = times[index - 1];
    if (previous !== undefined && time - previous > GAP_SECONDS) {
      outTimes.push(previous + 60);
      outColumns.forEach((column) => column.push(null));
    }
    outTimes.push(time);
    outColumns.forEach((column, which) => column.push(columns[which]?.[index] ?? null));
  });
  return { times: outTimes, columns: outColumns };
}

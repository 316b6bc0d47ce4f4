import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatNumber, withGaps, type ChartSpec } from './chartSpec.ts';

/*
 * The one module that imports uPlot (about 50 kB minified): Chart.tsx loads it with a dynamic
 * import, so it is its own chunk and only pages that draw a chart (the admin overview) download it.
 */

const timeFormat = new Intl.DateTimeFormat('nl-NL', { hour: '2-digit', minute: '2-digit' });
const dateTimeFormat = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

/** Cumulative sums per category (series order from the bottom), for bars drawn over each other. */
function stackedValues(spec: ChartSpec): Array<Array<number | null>> {
  const sums: Array<Array<number | null>> = [];
  let running: number[] = (spec.categories ?? []).map(() => 0);
  for (const series of spec.series) {
    running = running.map((sum, index) => sum + (series.values[index] ?? 0));
    sums.push([...running]);
  }
  return sums;
}

/** Every category that fits (about 56 px each): on a phone, every second or third day is labelled. */
function categorySplits(xs: readonly number[], plotWidth: number): number[] {
  const step = Math.max(1, Math.ceil(xs.length / Math.max(1, Math.floor(plotWidth / 56))));
  return xs.filter((index) => index % step === 0);
}

function optionsOf(spec: ChartSpec, width: number): { options: uPlot.Options; data: uPlot.AlignedData } {
  const formatY = spec.formatY ?? formatNumber;
  const height = spec.height ?? 240;
  const axisStyle = { stroke: '#334155', grid: { stroke: '#e2e8f0', width: 1 }, ticks: { stroke: '#cbd5e1', width: 1 } };
  const yAxis: uPlot.Axis = { ...axisStyle, label: spec.yLabel, size: 64, values: (_u, splits) => splits.map((value) => formatY(value)) };
  const yRange: uPlot.Scale.Range = (_u, _min, max) => [0, Math.max(spec.minYMax ?? 0, max > 0 ? max * 1.1 : 1)];

  if (spec.kind === 'time') {
    const { times, columns } = withGaps(spec.times ?? [], spec.series.map((series) => series.values));
    return {
      data: [times, ...columns],
      options: {
        width,
        height,
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: yRange } },
        axes: [{ ...axisStyle, label: spec.xLabel, values: (_u, splits) => splits.map((value) => timeFormat.format(new Date(value * 1000))) }, yAxis],
        series: [
          { label: 'Tijd', value: (_u, value) => (value == null ? '–' : dateTimeFormat.format(new Date(value * 1000))) },
          ...spec.series.map((series) => ({
            label: series.label,
            stroke: series.color,
            width: 2,
            spanGaps: false,
            points: { show: false },
            value: (_u: uPlot, value: number | null) => (value == null ? '–' : formatY(value)),
          })),
        ],
      },
    };
  }

  const categories = spec.categories ?? [];
  const xs = categories.map((_label, index) => index);
  // Stacked: the cumulative bars, tallest first, each drawn over the one before (opaque fills).
  const layers = spec.stacked ? stackedValues(spec).map((values, index) => ({ series: spec.series[index], values })).reverse() : spec.series.map((series) => ({ series, values: [...series.values] }));
  const bars = uPlot.paths.bars?.({ size: [0.6, 80], gap: 2 });
  return {
    data: [xs, ...layers.map((layer) => layer.values)],
    options: {
      width,
      height,
      // The legend names the colours; the values are in the text alternative (stacked sums would mislead here).
      legend: { live: false },
      cursor: { show: false },
      scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: { range: yRange } },
      axes: [
        { ...axisStyle, label: spec.xLabel, splits: (u) => categorySplits(xs, u.bbox.width / uPlot.pxRatio), values: (_u, splits) => splits.map((value) => categories[value] ?? ''), gap: 4, size: 56 },
        yAxis,
      ],
      series: [
        { label: spec.xLabel },
        ...layers.map((layer) => ({ label: layer.series?.label ?? '', stroke: layer.series?.color, fill: layer.series?.color, width: 0, paths: bars, points: { show: false } })),
      ],
    },
  };
}

/** A uPlot chart that follows its container's width. */
export function UPlotChart({ spec }: { spec: ChartSpec }) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = target.current;
    if (!element) return undefined;
    const width = () => Math.max(240, Math.floor(element.clientWidth));
    const { options, data } = optionsOf(spec, width());
    const plot = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: options.height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [spec]);
  return <div ref={target} className="chart-canvas" data-testid="chart-canvas" aria-hidden="true" />;
}

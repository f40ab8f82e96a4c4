import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import type { UsageGroupJson } from '@gateway/edge/contract';
import { formatCount, formatDay } from '../format';
import { axisUsd, displayUsd, toMicros } from '../money';

/** Marked once the chart of a report has been drawn: the time the Console's README reports is measured to it. */
export const CHART_DRAWN_MARK = 'console:usage-chart-drawn';

const DAY_SECONDS = 86_400;
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000];
const COLORS = { requests: '#3b5bdb', errors: '#e03131', cost: '#2b8a3e', grid: '#e9ecef', axis: '#495057' };

/**
 * Requests, errors and cost per day, on uPlot (loaded with this page, not
 * before). Counts are bars on the left axis, cost a line on the right. The
 * legend shows the hovered day's figures, the cost as the API's own string:
 * only the line's position goes through a number (its integer micro-dollars).
 */
export function UsageChart({ days, range }: { days: UsageGroupJson[]; range: string }) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let chart: uPlot | undefined;
    let cancelled = false;
    const resize = new ResizeObserver(() => chart?.setSize({ width: element.clientWidth, height: chartHeight(element) }));

    void import('./uplot').then(({ default: UPlot }) => {
      if (cancelled) return;
      const x = days.map((day) => Date.parse(`${day.key ?? ''}T00:00:00Z`) / 1000);
      const costs = days.map((day) => day.cost_usd);
      const bars = UPlot.paths.bars?.({ size: [0.7, 28], gap: 1 });
      const opts: uPlot.Options = {
        width: element.clientWidth,
        height: chartHeight(element),
        tzDate: (seconds) => UPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        cursor: { points: { show: false }, drag: { x: false, y: false } },
        scales: {
          x: { time: true, range: (_u, min, max) => [min - DAY_SECONDS / 2, max + DAY_SECONDS / 2] },
          y: { range: (_u, _min, max) => [0, Math.max(max, 4) * 1.1] },
          usd: { range: (_u, _min, max) => [0, Math.max(max, 10) * 1.1] },
        },
        axes: [
          { stroke: COLORS.axis, grid: { stroke: COLORS.grid }, ticks: { stroke: COLORS.grid }, values: (_u, ticks) => ticks.map((tick) => formatDay(new Date(tick * 1000).toISOString())) },
          // Whole requests only: a count has no half.
          { stroke: COLORS.axis, grid: { stroke: COLORS.grid }, ticks: { stroke: COLORS.grid }, label: 'Requests', size: 60, incrs: COUNT_STEPS, values: (_u, ticks) => ticks.map((tick) => formatCount(tick)) },
          { scale: 'usd', side: 1, stroke: COLORS.axis, grid: { show: false }, ticks: { stroke: COLORS.grid }, label: 'Cost (USD)', labelGap: 8, size: 96, values: (_u, ticks) => ticks.map(axisUsd) },
        ],
        series: [
          { label: 'Day', value: (_u, seconds) => (seconds == null ? '–' : formatDay(new Date(seconds * 1000).toISOString())) },
          { label: 'Requests', stroke: COLORS.requests, fill: `${COLORS.requests}cc`, width: 0, ...(bars ? { paths: bars } : {}), value: (_u, v) => (v == null ? '–' : formatCount(v)) },
          { label: 'Errors', stroke: COLORS.errors, fill: `${COLORS.errors}dd`, width: 0, ...(bars ? { paths: bars } : {}), value: (_u, v) => (v == null ? '–' : formatCount(v)) },
          {
            label: 'Cost',
            scale: 'usd',
            stroke: COLORS.cost,
            width: 2,
            points: { show: days.length <= 31, size: 5 },
            value: (_u, _v, _series, index) => (index == null ? '–' : displayUsd(costs[index] ?? '0.000000')),
          },
        ],
        hooks: {
          draw: [
            () => {
              if (element.dataset.drawnRange === range) return;
              element.dataset.drawnRange = range;
              performance.mark(CHART_DRAWN_MARK, { detail: { range, days: days.length } });
            },
          ],
        },
      };
      const data: uPlot.AlignedData = [
        x,
        days.map((day) => day.requests),
        days.map((day) => day.errors),
        days.map((day) => Number(toMicros(day.cost_usd))),
      ];
      chart = new UPlot(opts, data, element);
      resize.observe(element);
    });

    return () => {
      cancelled = true;
      resize.disconnect();
      chart?.destroy();
      delete element.dataset.drawnRange;
    };
  }, [days, range]);

  return <div ref={container} class="chart" data-chart-range={range} />;
}

function chartHeight(element: HTMLElement): number {
  return element.clientWidth < 600 ? 240 : 320;
}

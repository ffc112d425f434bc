/**
 * The results charts (uPlot): each treatment's difference to control with its 95% interval, as the
 * experiment's own analysis states it (lambdas/domain/primary-analysis.ts), and the
 * cumulative conversion rate per variant over time (the response's `series`: one point per UTC hour
 * while the run is under 3 days, else per UTC day). Each chart has a caption and its numbers as a
 * table, the text alternative of the canvas.
 */
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { formatInterval, formatPercent, formatPoints } from './format-stats';
import type { PrimaryComparison } from '../../../lambdas/domain/primary-analysis';
import type { SeriesPoint } from '../admin-types';
import { NumbersTable } from './numbers-table';
import { UPlotChart, variantColor } from './uplot-chart';

const HOUR_SECONDS = 3_600;
const DAY_SECONDS = 86_400;
const pp = (rate: number | null) => (rate === null ? null : rate * 100);

/** Whiskers of the interval (low to high) per treatment and the control line at zero, on uPlot's canvas. */
function drawIntervals(u: uPlot): void {
  const ctx = u.ctx;
  const dpr = devicePixelRatio || 1;
  const [xs, , lows, highs] = u.data as unknown as [number[], Array<number | null>, Array<number | null>, Array<number | null>];
  ctx.save();
  const y0 = u.valToPos(0, 'y', true);
  ctx.strokeStyle = '#444';
  ctx.lineWidth = dpr;
  ctx.setLineDash([4 * dpr, 4 * dpr]);
  ctx.beginPath();
  ctx.moveTo(u.bbox.left, y0);
  ctx.lineTo(u.bbox.left + u.bbox.width, y0);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = '#444';
  ctx.font = `${12 * dpr}px system-ui, sans-serif`;
  ctx.textAlign = 'right';
  ctx.fillText('control', u.bbox.left + u.bbox.width - 4 * dpr, y0 - 4 * dpr);
  ctx.lineWidth = 2 * dpr;
  xs.forEach((x, i) => {
    const low = lows[i];
    const high = highs[i];
    if (low === null || low === undefined || high === null || high === undefined) return;
    const cx = u.valToPos(x, 'x', true);
    const top = u.valToPos(high, 'y', true);
    const bottom = u.valToPos(low, 'y', true);
    const cap = 8 * dpr;
    ctx.strokeStyle = variantColor(x);
    ctx.beginPath();
    ctx.moveTo(cx, top);
    ctx.lineTo(cx, bottom);
    ctx.moveTo(cx - cap, top);
    ctx.lineTo(cx + cap, top);
    ctx.moveTo(cx - cap, bottom);
    ctx.lineTo(cx + cap, bottom);
    ctx.stroke();
  });
  ctx.restore();
}

const noPath = () => null;

type Charted = Pick<PrimaryComparison, 'variant' | 'difference' | 'ci_low' | 'ci_high'>;

/** `test` names the analysis in the caption ("sequential", "fixed-horizon"). */
export function IntervalChart({ comparisons, test }: { comparisons: Charted[]; test: string }) {
  const { options, data } = useMemo(() => {
    const xs = comparisons.map((_, i) => i + 1);
    const names = comparisons.map((c) => c.variant);
    const data: uPlot.AlignedData = [xs, comparisons.map((c) => pp(c.difference)), comparisons.map((c) => pp(c.ci_low)), comparisons.map((c) => pp(c.ci_high))];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      legend: { show: false },
      cursor: { show: false },
      scales: {
        x: { time: false, range: () => [0.5, xs.length + 0.5] },
        y: {
          range: (_u, min, max) => {
            const lo = Math.min(min ?? 0, 0);
            const hi = Math.max(max ?? 0, 0);
            const pad = Math.max((hi - lo) * 0.1, 0.5);
            return [lo - pad, hi + pad];
          },
        },
      },
      axes: [
        { splits: () => xs, values: (_u, splits) => splits.map((v) => names[v - 1] ?? '') },
        { label: 'Difference to control (pp)', values: (_u, splits) => splits.map((v) => `${Number(v.toFixed(2))}`), size: 50 },
      ],
      series: [
        {},
        { label: 'Difference', stroke: '#222', fill: '#222', paths: noPath, points: { show: true, size: 10, fill: '#222' } },
        { label: '95% interval low', stroke: '#888', paths: noPath, points: { show: false } },
        { label: '95% interval high', stroke: '#888', paths: noPath, points: { show: false } },
      ],
      hooks: { draw: [drawIntervals] },
    };
    return { options, data };
  }, [comparisons]);
  return (
    <figure class="results-figure">
      <figcaption id="interval-chart-caption">
        Difference in conversion rate to control, with its 95% {test} interval (percentage points): the figures of the metrics table. An interval that crosses
        the dashed control line is not significant before any correction.
      </figcaption>
      <UPlotChart name="intervals" options={options} data={data} height={220} />
      <details>
        <summary>The chart's numbers</summary>
        <NumbersTable label="Difference to control per variant" columns={['Variant', 'Difference', '95% interval']} caption="Difference to control per variant">
          {comparisons.map((c) => (
            <tr key={c.variant}>
              <th scope="row">{c.variant}</th>
              <td>{formatPoints(c.difference)}</td>
              <td>{formatInterval(c.ci_low, c.ci_high, formatPoints)}</td>
            </tr>
          ))}
        </NumbersTable>
      </details>
    </figure>
  );
}

export function SeriesChart({ series, variants }: { series: SeriesPoint[]; variants: string[] }) {
  const hourly = series[0]?.interval === 'hour';
  const { options, data } = useMemo(() => {
    const step = hourly ? HOUR_SECONDS : DAY_SECONDS;
    // An hourly point's date is the hour's start (an ISO time), a daily one's the day.
    const xs = series.map((p) => Date.parse(hourly ? p.date : `${p.date}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, ...variants.map((name) => series.map((p) => pp(p.variants.find((v) => v.variant === name)?.conversion_rate ?? null)))];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      // The legend names the variants only (uPlot's legend.live: false leaves out the x series and the
      // values): a live legend shows the value under the cursor, and with no cursor over the chart
      // (always, on a screenshot or a first look) its values are placeholders ("—").
      legend: { live: false },
      scales: {
        // Fixed to the run's hours or days plus half of one either side: one or two points are not
        // spread over years by the automatic time range, and the axis shows UTC hours or days.
        x: { time: false, auto: false, min: (xs[0] ?? 0) - step / 2, max: (xs[xs.length - 1] ?? 0) + step / 2 },
        y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil((max ?? 0) * 1.1))] },
      },
      axes: hourly
        ? [
            // Two lines: the hour, and the day under the first tick and wherever the day changes.
            { splits: () => hourSplits(xs), values: (_u, splits) => hourLabels(splits), size: 48 },
            { label: 'Conversion rate (%)', values: (_u, splits) => splits.map((v) => `${Number(v.toFixed(2))}%`), size: 56 },
          ]
        : [
            { splits: () => daySplits(xs), values: (_u, splits) => splits.map((v) => new Date(v * 1000).toISOString().slice(5, 10)) },
            { label: 'Conversion rate (%)', values: (_u, splits) => splits.map((v) => `${Number(v.toFixed(2))}%`), size: 56 },
          ],
      series: [
        { label: hourly ? 'Hour (UTC)' : 'Day (UTC)' },
        ...variants.map((name, i) => ({
          label: name,
          stroke: variantColor(i),
          width: 2,
          points: { show: series.length <= 31, size: 6 },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${Number(v.toFixed(2))}%`),
        })),
      ],
    };
    return { options, data };
  }, [series, variants, hourly]);
  const unit = hourly ? 'hour' : 'day';
  return (
    <figure class="results-figure">
      <figcaption>
        Cumulative conversion rate per variant, one point per UTC {unit} of the run
        {hourly ? ' (hourly while the run is under 3 days, then daily)' : ''}
        {series.length === 1 ? `: one ${unit} so far, so one point per variant (the lines start with the second ${unit}).` : '.'}
      </figcaption>
      <UPlotChart name="series" options={options} data={data} height={260} />
      <details>
        <summary>The chart's numbers</summary>
        <NumbersTable
          label={`Cumulative conversion per ${unit}`}
          columns={[hourly ? 'Hour (UTC)' : 'Day', ...variants]}
          caption={`Cumulative conversion rate per variant and ${unit}`}
        >
          {series.map((p) => (
            <tr key={p.date}>
              <th scope="row">{hourly ? `${p.date.slice(0, 10)} ${p.date.slice(11, 16)}` : p.date}</th>
              {variants.map((name) => {
                const v = p.variants.find((x) => x.variant === name);
                return <td key={name}>{v ? `${formatPercent(v.conversion_rate)} (${v.converted}/${v.enrolled})` : '—'}</td>;
              })}
            </tr>
          ))}
        </NumbersTable>
      </details>
    </figure>
  );
}

/** At most about six day ticks, evenly spaced from the first day. */
function daySplits(xs: number[]): number[] {
  const step = Math.max(1, Math.ceil(xs.length / 6));
  return xs.filter((_, i) => i % step === 0);
}

/** At most about six hour ticks, on UTC hours divisible by a step of 1, 2, 3, 4, 6, 12 or 24 hours. */
function hourSplits(xs: number[]): number[] {
  const step = [1, 2, 3, 4, 6, 12, 24].find((s) => xs.filter((x) => (x / HOUR_SECONDS) % s === 0).length <= 6) ?? 24;
  const ticks = xs.filter((x) => (x / HOUR_SECONDS) % step === 0);
  return ticks.length > 0 ? ticks : xs.slice(0, 1);
}

/** "09:00", with the UTC day ("04-01") on a second line under the first tick and where the day changes. */
function hourLabels(splits: number[]): string[] {
  return splits.map((v, i) => {
    const iso = new Date(v * 1000).toISOString();
    const newDay = i === 0 || new Date(splits[i - 1]! * 1000).toISOString().slice(0, 10) !== iso.slice(0, 10);
    return newDay ? `${iso.slice(11, 16)}\n${iso.slice(5, 10)}` : iso.slice(11, 16);
  });
}

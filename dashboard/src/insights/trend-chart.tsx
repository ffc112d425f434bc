/**
 * A trends result as a uPlot line chart (one line per series and breakdown value; the previous
 * period dashed, on the same buckets) and as a table: each line's total beside the previous period's,
 * and per-bucket numbers under "The chart's numbers". Buckets the data do not cover to their end yet
 * (`partial_from`: today, this hour or week) sit on a grey band labelled "still counting", and weeks the
 * range cuts (`clipped`) say so in the table, so a line falling at the end reads as unfinished, not as
 * a drop. Labels are event and property values: uPlot writes them as text (textContent), the table as
 * Preact text nodes.
 */
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { breakdownLabel } from '../../../lambdas/domain/insights/breakdown-line';
import { NumbersTable } from '../results/numbers-table';
import { UPlotChart, variantColor } from '../results/uplot-chart';
import type { TrendLine, TrendsResult } from './insight-types';

const MEASURE_WORDS: Record<TrendLine['measure'], string> = { events: 'events', users: 'users', sum: 'sum of', average: 'average of' };

/** "signup: users · ios"; the grouped rest and the missing value as "Other values" and "Unknown" (breakdown-line.ts). */
export function lineName(line: TrendLine): string {
  const measure = line.measure === 'sum' || line.measure === 'average' ? `${MEASURE_WORDS[line.measure]} ${line.property}` : MEASURE_WORDS[line.measure];
  const breakdown = breakdownLabel(line);
  return `${line.event}: ${measure}${breakdown === null ? '' : ` · ${breakdown}`}`;
}

export function formatValue(value: number | null): string {
  if (value === null) return '—';
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** The change from the previous period, in words for the table. */
export function formatChange(now: number | null, before: number | null): { text: string; direction: 'up' | 'down' | null } {
  if (now === null || before === null) return { text: '—', direction: null };
  if (before === 0) return { text: now === 0 ? 'no change' : 'new', direction: now === 0 ? null : 'up' };
  const change = now / before - 1;
  if (change === 0) return { text: 'no change', direction: null };
  return { text: `${change > 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(1)}%`, direction: change > 0 ? 'up' : 'down' };
}

/** A bucket label as seconds since the epoch (uPlot's x). */
const bucketSeconds = (bucket: string) => Date.parse(bucket.length === 10 ? `${bucket}T00:00:00Z` : bucket.replace(/Z$/, ':00Z')) / 1000;

/** A grey band from the first bucket still counting to the chart's end, labelled, on uPlot's canvas. */
function drawPartial(partialFrom: number | null, step: number) {
  return (u: uPlot) => {
    if (partialFrom === null) return;
    const xs = u.data[0] as number[];
    const from = xs[partialFrom];
    if (from === undefined) return;
    const dpr = devicePixelRatio || 1;
    const left = Math.max(u.bbox.left, u.valToPos(from - step / 2, 'x', true));
    const ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = 'rgba(0, 0, 0, 0.06)';
    ctx.fillRect(left, u.bbox.top, u.bbox.left + u.bbox.width - left, u.bbox.height);
    ctx.fillStyle = '#59636e';
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    ctx.textAlign = 'right';
    ctx.fillText('still counting', u.bbox.left + u.bbox.width - 4 * dpr, u.bbox.top + 12 * dpr);
    ctx.restore();
  };
}

/** The table's words for a bucket: "(still counting)", "(part of the week)". */
export function bucketNote(result: Pick<TrendsResult, 'partial_from' | 'clipped'>, i: number): string {
  const notes = [
    ...(result.partial_from !== null && i >= result.partial_from ? ['still counting'] : []),
    ...(result.clipped.includes(i) ? ['part of the week in the range'] : []),
  ];
  return notes.length ? ` (${notes.join('; ')})` : '';
}

export function TrendChart({ result, timeZone = 'UTC' }: { result: TrendsResult; timeZone?: string }) {
  const { options, data } = useMemo(() => {
    // A week the range cuts at its start is labelled by the range's first day: place it on its Monday.
    const xs = result.buckets.map(
      (b, i) => bucketSeconds(b) - (result.interval === 'week' && i === 0 ? ((new Date(bucketSeconds(b) * 1000).getUTCDay() + 6) % 7) * 86_400 : 0),
    );
    const step = xs.length > 1 ? xs[1]! - xs[0]! : 86_400;
    const previous = result.previous !== null;
    const data: uPlot.AlignedData = [xs, ...result.lines.map((l) => l.values), ...(previous ? result.lines.map((l) => l.previous_values ?? []) : [])];
    // An hour is named by its local wall-clock time as the result labels it (YYYY-MM-DDTHH:00 and the offset).
    const label = (v: number, bucket?: string) =>
      result.interval === 'hour' ? (bucket ?? new Date(v * 1000).toISOString()).slice(5, 16).replace('T', ' ') : new Date(v * 1000).toISOString().slice(5, 10);
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      legend: { live: false },
      scales: {
        x: { time: false, auto: false, min: (xs[0] ?? 0) - step / 2, max: (xs[xs.length - 1] ?? 0) + step / 2 },
        y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.1)] },
      },
      axes: [
        {
          splits: () => xs.filter((_, i) => i % Math.max(1, Math.ceil(xs.length / 6)) === 0),
          // Each tick names its bucket as the result does (a cut first week by the range's first day).
          values: (_u, splits) =>
            splits.map((v) => (xs.indexOf(v) >= 0 ? label(bucketSeconds(result.buckets[xs.indexOf(v)]!), result.buckets[xs.indexOf(v)]) : label(v))),
        },
        { values: (_u, splits) => splits.map((v) => formatValue(Number(v.toFixed(2)))), size: 60 },
      ],
      series: [
        { label: result.interval === 'hour' ? `Hour (${timeZone})` : result.interval === 'week' ? `Week from Monday (${timeZone})` : `Day (${timeZone})` },
        ...result.lines.map((l, i) => ({ label: lineName(l), stroke: variantColor(i), width: 2, points: { show: xs.length <= 31, size: 5 } })),
        ...(previous
          ? result.lines.map((l, i) => ({
              label: `${lineName(l)} (previous period)`,
              stroke: variantColor(i),
              width: 1,
              dash: [5, 4],
              points: { show: false },
            }))
          : []),
      ],
      hooks: { draw: [drawPartial(result.partial_from, step)] },
    };
    return { options, data };
  }, [result, timeZone]);
  const period =
    result.previous === null
      ? ''
      : `; dashed: the previous period (${result.previous.date_from} to ${result.previous.date_to}) on the same ${result.interval}s`;
  return (
    <figure class="results-figure">
      <figcaption>
        {result.interval === 'hour' ? 'Per hour' : result.interval === 'week' ? 'Per week (weeks start on Monday)' : 'Per day'}, {result.date_from} to{' '}
        {result.date_to} ({timeZone}){period}.
        {result.partial_from !== null &&
          ` The grey band: ${result.interval === 'hour' ? 'hours' : `${result.interval}s`} the data do not cover to their end yet, still counting.`}
      </figcaption>
      <UPlotChart name="trends" options={options} data={data} height={280} />
      <details>
        <summary>The chart's numbers</summary>
        <NumbersTable
          label="Values per bucket"
          csv="trends-per-bucket"
          columns={['Bucket', ...result.lines.map(lineName)]}
          caption="Each line's value per bucket"
        >
          {result.buckets.map((b, i) => (
            <tr key={b}>
              <th scope="row">
                {b}
                {bucketNote(result, i)}
              </th>
              {result.lines.map((l, j) => (
                <td key={j}>{formatValue(l.values[i] ?? null)}</td>
              ))}
            </tr>
          ))}
        </NumbersTable>
      </details>
    </figure>
  );
}

export function TrendTotals({ result }: { result: TrendsResult }) {
  const previous = result.previous !== null;
  return (
    <NumbersTable
      label="Totals"
      name="trend-totals"
      csv="trends-totals"
      columns={['Line', 'Total', ...(previous ? ['Previous period', 'Change'] : [])]}
      caption="Each line's total over the range, and over the previous period"
    >
      {result.lines.map((l, i) => {
        const change = formatChange(l.total, l.previous_total);
        return (
          <tr key={i}>
            <th scope="row">{lineName(l)}</th>
            <td>{formatValue(l.total)}</td>
            {previous && <td>{formatValue(l.previous_total)}</td>}
            {previous && <td class={change.direction ? `change-${change.direction}` : undefined}>{change.text}</td>}
          </tr>
        );
      })}
    </NumbersTable>
  );
}

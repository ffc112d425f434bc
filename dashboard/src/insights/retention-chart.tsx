/**
 * The retention curve as a uPlot line (share of users back per period since their first start event,
 * all cohorts pooled: retention-curve.ts), with the same figures as text in a list under it, since the
 * chart itself is hidden from assistive technology (UPlotChart). Event names are written as text.
 */
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { formatPercent } from '../results/format-stats';
import { UPlotChart, variantColor } from '../results/uplot-chart';
import type { RetentionResult } from './funnel-types';
import { retentionCurve } from './retention-curve';

export function RetentionChart({ result }: { result: RetentionResult }) {
  const unit = result.interval === 'day' ? 'Day' : 'Week';
  const curve = useMemo(() => retentionCurve(result), [result]);
  const { options, data } = useMemo(() => {
    const xs = curve.map((p) => p.period);
    const data: uPlot.AlignedData = [xs, curve.map((p) => (p.share === null ? null : p.share * 100))];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      legend: { live: false },
      scales: { x: { time: false, auto: false, min: -0.5, max: Math.max(0.5, xs.length - 0.5) }, y: { range: [0, 100] } },
      axes: [
        { splits: () => xs.filter((_, i) => i % Math.max(1, Math.ceil(xs.length / 8)) === 0), values: (_u, splits) => splits.map((v) => `${unit} ${v}`) },
        { values: (_u, splits) => splits.map((v) => `${v}%`), size: 50 },
      ],
      series: [{ label: unit }, { label: 'Came back (all cohorts)', stroke: variantColor(0), width: 2, points: { show: true, size: 6 } }],
    };
    return { options, data };
  }, [curve, unit]);
  return (
    <figure class="results-figure retention-curve">
      <figcaption>
        Share of users who did {result.return_event} in each {result.interval} after their first {result.start_event}, all cohorts together (each{' '}
        {result.interval} over the cohorts that have reached it).
      </figcaption>
      <UPlotChart name="retention" options={options} data={data} height={220} />
      <details>
        <summary>The chart's numbers</summary>
        <ul class="retention-curve-numbers">
          {curve.map((p) => (
            <li key={p.period}>
              {unit} {p.period}:{' '}
              {p.share === null ? '—' : `${formatPercent(p.share)} (${p.users.toLocaleString('en-US')} of ${p.cohortUsers.toLocaleString('en-US')} users)`}
            </li>
          ))}
        </ul>
      </details>
    </figure>
  );
}

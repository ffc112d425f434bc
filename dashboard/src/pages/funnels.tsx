/** Funnels (issue 25): steps, range, window and breakdown in a form; the funnel as bars and a table per group. */
import { useState } from 'preact/hooks';
import { AsyncView, useAsync } from '../components/async-view';
import { Field } from '../components/field';
import { FunnelChart } from '../insights/funnel-chart';
import type { FunnelsResult } from '../insights/funnel-types';
import { runInsight } from '../insights/run-insight';
import type { PageProps } from '../page';
import { pathOf } from '../router';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface Form {
  steps: string;
  date_from: string;
  date_to: string;
  window: string;
  breakdown: string;
}

function definitionOf(form: Form) {
  return {
    steps: form.steps
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((event) => ({ event })),
    date_from: form.date_from,
    date_to: form.date_to,
    conversion_window_days: Number(form.window),
    ...(form.breakdown ? { breakdown: form.breakdown } : {}),
  };
}

export function FunnelsPage({ api, params }: PageProps) {
  const projectPath = pathOf('projects', params.projectId!);
  const [form, setForm] = useState<Form | null>(null);
  const run = useAsync(
    () => (form ? runInsight<FunnelsResult>(api, projectPath, 'funnels', definitionOf(form)) : Promise.resolve(null)),
    [api, projectPath, form],
  );
  return (
    <>
      <h1>Funnels</h1>
      <form
        class="insight-form"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const text = (name: string) => String(f.get(name) ?? '');
          setForm({ steps: text('steps'), date_from: text('date_from'), date_to: text('date_to'), window: text('window'), breakdown: text('breakdown') });
        }}
      >
        <Field id="funnel-steps" label="Steps" hint="One event name per line, in order (2 to 6)">
          <textarea name="steps" rows={4} required />
        </Field>
        <Field id="funnel-from" label="From">
          <input name="date_from" type="date" defaultValue={day(-7)} required />
        </Field>
        <Field id="funnel-to" label="To">
          <input name="date_to" type="date" defaultValue={day(0)} required />
        </Field>
        <Field id="funnel-window" label="Window (days)">
          <input name="window" type="number" min={1} max={90} defaultValue="14" required />
        </Field>
        <Field id="funnel-breakdown" label="Breakdown">
          <select name="breakdown">
            <option value="">None</option>
            <option value="platform">Platform</option>
            <option value="country">Country</option>
            <option value="app_version">App version</option>
          </select>
        </Field>
        <button type="submit">Show funnel</button>
      </form>
      <AsyncView state={run}>
        {(answer) =>
          answer ? (
            <>
              {answer.result.groups.map((g) => (
                <FunnelChart key={g.breakdown_value ?? ''} group={g} title={g.breakdown_value === null ? 'All users' : g.breakdown_value} />
              ))}
              <p class="muted small-print">Counted on events received up to {answer.data_through}.</p>
            </>
          ) : (
            <p class="muted">Name the steps and show the funnel.</p>
          )
        }
      </AsyncView>
    </>
  );
}

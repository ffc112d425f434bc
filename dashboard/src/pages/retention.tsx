/** Retention (issue 25): start and return events, range and interval in a form; the cohort triangle. */
import { useState } from 'preact/hooks';
import { AsyncView, useAsync } from '../components/async-view';
import { Field } from '../components/field';
import type { RetentionResult } from '../insights/funnel-types';
import { RetentionTable } from '../insights/retention-table';
import { runInsight } from '../insights/run-insight';
import type { PageProps } from '../page';
import { pathOf } from '../router';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

export function RetentionPage({ api, params }: PageProps) {
  const projectPath = pathOf('projects', params.projectId!);
  const [definition, setDefinition] = useState<Record<string, string> | null>(null);
  const run = useAsync(
    () => (definition ? runInsight<RetentionResult>(api, projectPath, 'retention', definition) : Promise.resolve(null)),
    [api, projectPath, definition],
  );
  return (
    <>
      <h1>Retention</h1>
      <form
        class="insight-form"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const text = (name: string) => String(f.get(name) ?? '').trim();
          setDefinition({
            start_event: text('start_event'),
            return_event: text('return_event'),
            interval: text('interval'),
            date_from: text('date_from'),
            date_to: text('date_to'),
          });
        }}
      >
        <Field id="retention-start" label="Start event">
          <input name="start_event" type="text" autoComplete="off" required />
        </Field>
        <Field id="retention-return" label="Return event">
          <input name="return_event" type="text" autoComplete="off" required />
        </Field>
        <Field id="retention-interval" label="By">
          <select name="interval">
            <option value="day">Day</option>
            <option value="week">Week</option>
          </select>
        </Field>
        <Field id="retention-from" label="From">
          <input name="date_from" type="date" defaultValue={day(-13)} required />
        </Field>
        <Field id="retention-to" label="To">
          <input name="date_to" type="date" defaultValue={day(0)} required />
        </Field>
        <button type="submit">Show retention</button>
      </form>
      <AsyncView state={run}>
        {(answer) =>
          answer ? (
            <>
              <RetentionTable result={answer.result} />
              <p class="muted small-print">Counted on events received up to {answer.data_through}.</p>
            </>
          ) : (
            <p class="muted">Name the events and show retention.</p>
          )
        }
      </AsyncView>
    </>
  );
}

/**
 * Create an experiment, or edit it while it is `created`: name, goal event (picked from the event
 * names seen recently, or typed), variants (control first, at least two), description. Start and
 * Stop, each after a confirmation saying what happens. Once started the form is read-only.
 */
import { useLayoutEffect, useState } from 'preact/hooks';
import type { Experiment } from '../admin-types';
import { ApiError, type ApiClient } from '../api';
import { errorText, useAsync } from '../components/async-view';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';
import '../results/results.css';

const FIELDS = ['name', 'goal_event', 'variants', 'description'];

interface Draft {
  name: string;
  goal_event: string;
  variants: string[];
  description: string;
}

const EMPTY: Draft = { name: '', goal_event: '', variants: ['control', 'treatment'], description: '' };

/** Event names seen recently (the admin events listing), without Tally's own `$` events. */
async function recentEventNames(api: ApiClient, projectId: string): Promise<string[]> {
  const { events } = await api.get<{ events: Array<{ name: string }> }>(`/admin/v1/projects/${encodeURIComponent(projectId)}/events?limit=1000`);
  return [...new Set(events.map((e) => e.name).filter((n) => !n.startsWith('$')))].sort();
}

export function ExperimentEditPage({ api, params }: PageProps) {
  const { projectId, experimentId } = params as { projectId: string; experimentId?: string };
  const base = `/admin/v1/projects/${encodeURIComponent(projectId)}/experiments`;
  const loaded = useAsync(
    () => (experimentId ? api.get<Experiment>(`${base}/${encodeURIComponent(experimentId)}`) : Promise.resolve(undefined)),
    [api, base, experimentId],
  );
  const names = useAsync(() => recentEventNames(api, projectId).catch(() => []), [api, projectId]);
  const experiment = loaded.data;
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<'start' | 'stop' | null>(null);

  // The form follows the experiment as loaded or saved. A layout effect runs before the browser paints,
  // so a keystroke right after "Saved." is never overwritten by a reset that came after it (an effect
  // waits for the next frame, up to 100 ms in a hidden tab).
  useLayoutEffect(() => {
    if (experiment) {
      setDraft({ name: experiment.name, goal_event: experiment.goal_event, variants: [...experiment.variants], description: experiment.description ?? '' });
    } else if (!experimentId) setDraft(EMPTY);
    setError(null);
  }, [experiment, experimentId]);

  const editable = !experimentId || experiment?.status === 'created';
  const dirty =
    experiment !== undefined &&
    (draft.name !== experiment.name ||
      draft.goal_event !== experiment.goal_event ||
      draft.description !== (experiment.description ?? '') ||
      draft.variants.join('\n') !== experiment.variants.join('\n'));
  const title = experimentId ? (experiment?.name ?? 'Experiment') : 'New experiment';

  async function save() {
    setBusy(true);
    setNotice('');
    try {
      const body = { name: draft.name, goal_event: draft.goal_event, variants: draft.variants, description: draft.description };
      if (experimentId) {
        loaded.set(await api.patch<Experiment>(`${base}/${encodeURIComponent(experimentId)}`, body));
        setNotice('Saved.');
      } else {
        const created = await api.post<Experiment>(base, body);
        setNotice('Created. Edit it until you start it.');
        navigate(pathOf('projects', projectId, 'experiments', created.id));
      }
      setError(null);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, errorText(err)));
    } finally {
      setBusy(false);
    }
  }

  async function transition(action: 'start' | 'stop') {
    setConfirming(null);
    setBusy(true);
    setNotice('');
    try {
      loaded.set(await api.post<Experiment>(`${base}/${encodeURIComponent(experimentId!)}/${action}`));
      setNotice(action === 'start' ? 'Started: users are now assigned to variants.' : 'Stopped: the results are final.');
      setError(null);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, errorText(err)));
    } finally {
      setBusy(false);
    }
  }

  if (experimentId && loaded.error !== null) {
    return (
      <>
        <h1>Experiment</h1>
        <p class="error" role="alert">
          Could not load the experiment: {loaded.error}
        </p>
      </>
    );
  }
  if (experimentId && !experiment)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );

  const formError = error?.apartFrom(FIELDS);
  const variantsError = error?.forField('variants');
  const setVariant = (i: number, value: string) => setDraft({ ...draft, variants: draft.variants.map((v, j) => (j === i ? value : v)) });

  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'experiments')}`}>Experiments</a>
      </p>
      <div class="page-heading">
        <h1>{title}</h1>
        {experiment && <StatusBadge status={experiment.status} />}
      </div>
      {experiment && experiment.status !== 'created' && (
        <p class="readonly-note">
          {experiment.status === 'running'
            ? `Running since ${formatTime(experiment.started_at)}. A started experiment cannot be edited.`
            : `Stopped at ${formatTime(experiment.stopped_at)}. Its results are final; a new run needs a new experiment.`}{' '}
          <a href={`#${pathOf('projects', projectId, 'experiments', experiment.id, 'results')}`}>See the results</a>
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {formError ?? 'The experiment was not saved: fix the fields marked below.'}
        </p>
      )}
      <p role="status" class="status-line">
        {notice}
      </p>
      <form
        class="stack-form experiment-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (editable) void save();
        }}
      >
        <fieldset disabled={!editable || busy}>
          <legend class="visually-hidden">Experiment settings</legend>
          <Field id="experiment-name" label="Name" error={error?.forField('name')}>
            <input type="text" name="name" autoComplete="off" value={draft.name} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
          </Field>
          <Field
            id="experiment-goal"
            label="Goal event"
            hint={
              !editable
                ? undefined
                : (names.data ?? []).length > 0
                  ? `Pick one of the ${names.data!.length} event names seen recently, or type a name.`
                  : 'No events seen recently: type the name of the event that counts as a conversion.'
            }
            error={error?.forField('goal_event')}
          >
            <input
              type="text"
              name="goal_event"
              autoComplete="off"
              list="recent-event-names"
              value={draft.goal_event}
              onInput={(e) => setDraft({ ...draft, goal_event: e.currentTarget.value })}
            />
          </Field>
          <datalist id="recent-event-names">
            {(names.data ?? []).map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <fieldset
            class={variantsError ? 'field variants-field field-invalid' : 'field variants-field'}
            aria-describedby={variantsError ? 'variants-error' : undefined}
          >
            <legend>Variants (the first is the control)</legend>
            <ol>
              {draft.variants.map((v, i) => (
                <li key={i}>
                  <label class="visually-hidden" for={`variant-${i}`}>
                    {i === 0 ? 'Variant 1 (control)' : `Variant ${i + 1}`}
                  </label>
                  <input
                    type="text"
                    id={`variant-${i}`}
                    name={`variant-${i}`}
                    autoComplete="off"
                    value={v}
                    aria-invalid={variantsError ? 'true' : undefined}
                    onInput={(e) => setVariant(i, e.currentTarget.value)}
                  />
                  {i === 0 && <span class="hint"> control</span>}
                  {editable && draft.variants.length > 2 && (
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() => setDraft({ ...draft, variants: draft.variants.filter((_, j) => j !== i) })}
                      aria-label={`Remove variant ${i + 1}`}
                    >
                      Remove
                    </button>
                  )}
                </li>
              ))}
            </ol>
            {editable && (
              <button type="button" class="secondary" onClick={() => setDraft({ ...draft, variants: [...draft.variants, ''] })}>
                Add variant
              </button>
            )}
            {variantsError && (
              <p class="field-error" id="variants-error">
                {variantsError}
              </p>
            )}
          </fieldset>
          <Field
            id="experiment-description"
            label="Description"
            hint={editable ? 'Optional: what you change and what you expect.' : undefined}
            error={error?.forField('description')}
          >
            <textarea name="description" rows={3} value={draft.description} onInput={(e) => setDraft({ ...draft, description: e.currentTarget.value })} />
          </Field>
          {editable && <button type="submit">Save</button>}
        </fieldset>
      </form>
      {experiment && experiment.status !== 'stopped' && (
        <div class="toolbar lifecycle">
          {experiment.status === 'created' && (
            <button type="button" disabled={busy || dirty} aria-describedby={dirty ? 'start-hint' : undefined} onClick={() => setConfirming('start')}>
              Start
            </button>
          )}
          {experiment.status === 'created' && dirty && (
            <p class="hint" id="start-hint">
              Save your changes before starting.
            </p>
          )}
          {experiment.status === 'running' && (
            <button type="button" class="danger" disabled={busy} onClick={() => setConfirming('stop')}>
              Stop
            </button>
          )}
        </div>
      )}
      <ConfirmDialog
        open={confirming === 'start'}
        title={`Start "${experiment?.name ?? ''}"?`}
        confirmLabel="Yes, start it"
        tone="primary"
        onConfirm={() => void transition('start')}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Users get assigned to the variants ({experiment?.variants.join(', ')}) from now on, and results are computed. The name, goal and variants can no
          longer be edited.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'stop'}
        title={`Stop "${experiment?.name ?? ''}"?`}
        confirmLabel="Yes, stop it"
        onConfirm={() => void transition('stop')}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Stopping is final: no one is assigned any more, the results are computed once more up to now and then freeze. Running it again means creating a new
          experiment.
        </p>
      </ConfirmDialog>
    </>
  );
}

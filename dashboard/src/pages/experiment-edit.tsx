/**
 * One experiment. While it is `created` (or new): the form (name, goal event picked from the event
 * names seen recently or typed, variants with the control first, an equal split or a weight per
 * variant, description), checked before
 * anything is sent, with Save and Start side by side and one of them the primary action. Once started:
 * a read-only summary (since when, goal, variants each with its share of traffic, description if any) with its actions: see the
 * results, and Stop while it runs. Start and Stop each ask for a confirmation saying what happens.
 */
import { useCan } from '../role';
import { ReadOnlyNote } from '../components/read-only-note';
import { useLayoutEffect, useState } from 'preact/hooks';
import { draftWeights, experimentDraftProblems, type ExperimentDraft, type ExperimentField } from '../../../lambdas/domain/experiment-fields';
import { nearlyEqualWeights } from '../../../lambdas/domain/variant-weights';
import type { Experiment } from '../admin-types';
import { ApiError, type ApiClient } from '../api';
import { errorText, useAsync } from '../components/async-view';
import { EventNameOptions, useRecentEventNames } from '../components/recent-event-names';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { METRIC_SETTINGS_FIELDS, MetricSettingsFacts, MetricSettingsFields, useMetricSettings } from '../components/metric-settings';
import { PLANNING_FIELDS, PlanningCalculator, usePlannedUsers } from '../components/planning-calculator';
import { CopyButton } from '../components/copy-button';
import { StatusBadge } from '../components/status-badge';
import { restSnippet, sdkSnippet } from '../experiment-snippets';
import { formatTime } from '../format-time';
import { variantShares } from '../format-weights';
import { formatCount } from '../results/format-stats';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';
import '../results/results.css';

const FIELDS: string[] = ['name', 'goal_event', 'variants', 'weights', 'description', ...METRIC_SETTINGS_FIELDS, ...PLANNING_FIELDS];

const EMPTY: ExperimentDraft = { name: '', goal_event: '', variants: ['control', 'treatment'], weights: null, description: '' };

export function ExperimentEditPage({ api, baseUrl, params }: PageProps) {
  const { projectId, experimentId } = params as { projectId: string; experimentId?: string };
  const base = `/admin/v1/projects/${encodeURIComponent(projectId)}/experiments`;
  const loaded = useAsync(
    () => (experimentId ? api.get<Experiment>(`${base}/${encodeURIComponent(experimentId)}`) : Promise.resolve(undefined)),
    [api, base, experimentId],
  );
  const experiment = loaded.data;
  const [notice, setNotice] = useState('');

  if (experimentId && loaded.error !== null && !experiment) {
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
  const common = { api, base, projectId, notice, setNotice, onChange: (e: Experiment) => loaded.set(e) };
  return experiment && experiment.status !== 'created' ? (
    <ExperimentSummary {...common} experiment={experiment} baseURL={baseUrl.replace(/\/$/, '')} />
  ) : (
    <ExperimentForm {...common} experiment={experiment} />
  );
}

interface ViewProps {
  api: ApiClient;
  base: string;
  projectId: string;
  notice: string;
  setNotice: (notice: string) => void;
  onChange: (experiment: Experiment) => void;
}

function Breadcrumb({ projectId }: { projectId: string }) {
  return (
    <p class="breadcrumb">
      <a href={`#${pathOf('projects', projectId, 'experiments')}`}>Experiments</a>
    </p>
  );
}

/** Start or stop after the confirmation; the new state replaces the shown one. */
function useTransition({ api, base, setNotice, onChange }: ViewProps, experiment: Experiment | undefined) {
  const [confirming, setConfirming] = useState<'start' | 'stop' | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(action: 'start' | 'stop') {
    setBusy(true);
    setError(null);
    try {
      onChange(await api.post<Experiment>(`${base}/${encodeURIComponent(experiment!.id)}/${action}`));
      setNotice(action === 'start' ? 'Started: users are now assigned to the variants.' : 'Stopped: the results are final.');
      setConfirming(null);
    } catch (err) {
      setError(`Could not ${action} it: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  }
  const dialogs = (
    <>
      <ConfirmDialog
        open={confirming === 'start'}
        title={`Start "${experiment?.name ?? ''}"?`}
        confirmLabel="Yes, start it"
        tone="primary"
        busy={busy}
        error={error}
        onConfirm={() => void run('start')}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Users get assigned to the variants (
          {experiment
            ? variantShares(experiment)
                .map(({ variant, share }) => `${variant} ${share}`)
                .join(', ')
            : ''}
          ) from now on, and results are computed. The name, goal, variants, weights, metrics and analysis settings can no longer be edited.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'stop'}
        title={`Stop "${experiment?.name ?? ''}"?`}
        confirmLabel="Yes, stop it"
        busy={busy}
        error={error}
        onConfirm={() => void run('stop')}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Stopping is final: no one is assigned any more, the results are computed once more up to now and then freeze. Running it again means creating a new
          experiment.
        </p>
      </ConfirmDialog>
    </>
  );
  return {
    busy,
    ask: (action: 'start' | 'stop') => {
      setError(null);
      setConfirming(action);
    },
    dialogs,
  };
}

/** A started experiment: what it is and since when, read-only, and what can be done with it. */
function ExperimentSummary(props: ViewProps & { experiment: Experiment; baseURL: string }) {
  const { experiment, projectId, notice, baseURL } = props;
  const transition = useTransition(props, experiment);
  const canRun = useCan('experimenter');
  const resultsHref = `#${pathOf('projects', projectId, 'experiments', experiment.id, 'results')}`;
  return (
    <>
      <Breadcrumb projectId={projectId} />
      <div class="page-heading">
        <h1>{experiment.name}</h1>
        <StatusBadge status={experiment.status} />
      </div>
      <p role="status" class="status-line">
        {notice}
      </p>
      <dl class="facts experiment-facts">
        <dt>Started</dt>
        <dd>{formatTime(experiment.started_at)}</dd>
        {experiment.stopped_at && (
          <>
            <dt>Stopped</dt>
            <dd>{formatTime(experiment.stopped_at)}</dd>
          </>
        )}
        <dt>Goal event</dt>
        <dd>
          <code>{experiment.goal_event}</code>
        </dd>
        <dt>Variants</dt>
        <dd>
          <ol class="plain-numbers variant-shares">
            {variantShares(experiment).map(({ variant, share }, i) => (
              <li key={variant}>
                {variant}
                {i === 0 && <span class="hint"> (control)</span>}: <span class="variant-share">{share}</span> of users
              </li>
            ))}
          </ol>
          {experiment.weights === null && <p class="hint">An equal split.</p>}
        </dd>
        {experiment.description && (
          <>
            <dt>Description</dt>
            <dd class="prewrap">{experiment.description}</dd>
          </>
        )}
        <MetricSettingsFacts experiment={experiment} />
        {experiment.planned_users != null && (
          <>
            <dt>Planned sample</dt>
            <dd>{formatCount(experiment.planned_users)} users</dd>
          </>
        )}
      </dl>
      <p class="muted">
        {experiment.status === 'running'
          ? 'Its settings are fixed while it runs. Stop it when you have your answer.'
          : 'It is stopped: no one new enrolls and its settings are fixed. Its results are final once computed over the whole run, which the results page says. To run it again, create a new experiment.'}
      </p>
      <div class="toolbar lifecycle">
        <a class="button" href={resultsHref}>
          See the results
        </a>
        {experiment.status === 'running' && canRun && (
          <button type="button" class="secondary danger-text" disabled={transition.busy} onClick={() => transition.ask('stop')}>
            Stop
          </button>
        )}
      </div>
      {experiment.status === 'running' && !canRun && <ReadOnlyNote needed="experimenter" what="stop experiments" />}
      {experiment.status === 'running' && <UseInYourApp experiment={experiment} baseURL={baseURL} />}
      {transition.dialogs}
    </>
  );
}

/** How to use the running experiment: the SDK's getVariant, or the REST form for a backend (experiment-snippets.ts). */
function UseInYourApp({ experiment, baseURL }: { experiment: Experiment; baseURL: string }) {
  const sdk = sdkSnippet(experiment);
  const rest = restSnippet(experiment, baseURL);
  return (
    <section class="use-experiment" aria-labelledby="use-experiment">
      <h2 id="use-experiment">Use it in your app</h2>
      <p>
        With the SDK (<a href={`#${pathOf('projects', experiment.project_id, 'install')}`}>Install</a> shows how to set it up):
      </p>
      <CopyButton text={sdk} label="Copy SDK code" />
      <pre class="code wrap" tabIndex={0} aria-label="SDK code">
        {sdk}
      </pre>
      <p>From a backend, over HTTP with a project key:</p>
      <CopyButton text={rest} label="Copy HTTP requests" />
      <pre class="code wrap" tabIndex={0} aria-label="HTTP requests">
        {rest}
      </pre>
    </section>
  );
}

/** A new or created experiment: the form, checked before it is sent, then Save and Start. */
function ExperimentForm(props: ViewProps & { experiment: Experiment | undefined }) {
  const { api, base, projectId, experiment, notice, setNotice, onChange } = props;
  const canWrite = useCan('experimenter');
  const names = useRecentEventNames(api, projectId);
  // The other experiments' names: a name clashing with one is said before sending (the API would refuse it).
  const others = useAsync(
    () =>
      api
        .get<{ experiments: Experiment[] }>(base)
        .then((r) => r.experiments.filter((e) => e.id !== experiment?.id).map((e) => e.name))
        .catch(() => []),
    [api, base, experiment?.id],
  );
  const [draft, setDraft] = useState<ExperimentDraft>(EMPTY);
  const [problems, setProblems] = useState<Partial<Record<ExperimentField, string>>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const transition = useTransition(props, experiment);
  const settings = useMetricSettings(experiment, draft.goal_event, () => setError(null));
  const planned = usePlannedUsers(experiment, () => setError(null));

  // The form follows the experiment as loaded or saved. A layout effect runs before the browser paints,
  // so a keystroke right after "Saved." is never overwritten by a reset that came after it (an effect
  // waits for the next frame, up to 100 ms in a hidden tab).
  useLayoutEffect(() => {
    setDraft(
      experiment
        ? {
            name: experiment.name,
            goal_event: experiment.goal_event,
            variants: [...experiment.variants],
            weights: experiment.weights?.map(String) ?? null,
            description: experiment.description ?? '',
          }
        : EMPTY,
    );
    setError(null);
    setProblems({});
  }, [experiment]);

  const dirty =
    experiment !== undefined &&
    (draft.name !== experiment.name ||
      draft.goal_event !== experiment.goal_event ||
      draft.description !== (experiment.description ?? '') ||
      draft.variants.join('\n') !== experiment.variants.join('\n') ||
      JSON.stringify(draftWeights(draft)) !== JSON.stringify(experiment.weights) ||
      settings.dirty ||
      planned.dirty);
  const change = (next: ExperimentDraft) => {
    setDraft(next);
    // The API's refusal was about the draft as sent; a field's own complaint goes as soon as it is fixed, new ones wait for the next Save.
    setError(null);
    if (Object.keys(problems).length) {
      const now = experimentDraftProblems(next, others.data ?? []);
      setProblems(Object.fromEntries(Object.entries(problems).filter(([field]) => now[field as ExperimentField] !== undefined)));
    }
  };

  async function save(form: HTMLFormElement) {
    const found = experimentDraftProblems(draft, others.data ?? []);
    setProblems(found);
    setError(null);
    const settingsOk = settings.check(draft.goal_event);
    if (Object.keys(found).length || !settingsOk) {
      requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setBusy(true);
    setNotice('');
    try {
      const body = {
        name: draft.name.trim(),
        goal_event: draft.goal_event,
        variants: draft.variants.map((v) => v.trim()),
        weights: draftWeights(draft),
        description: draft.description,
        ...settings.body(),
        ...planned.body(),
      };
      if (experiment) {
        onChange(await api.patch<Experiment>(`${base}/${encodeURIComponent(experiment.id)}`, body));
        setNotice('Saved.');
      } else {
        const created = await api.post<Experiment>(base, body);
        setNotice('Created. Edit it until you start it.');
        navigate(pathOf('projects', projectId, 'experiments', created.id));
      }
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, errorText(err)));
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (field: ExperimentField) => problems[field] ?? error?.forField(field);
  const formError = error?.apartFrom(FIELDS);
  const variantsError = fieldError('variants');
  const weightsError = fieldError('weights');
  const weighted = draft.weights !== null;
  const total = weighted ? draftWeights(draft)!.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0) : 100;
  const setWeight = (i: number, value: string) => change({ ...draft, weights: draft.weights!.map((w, j) => (j === i ? value : w)) });
  // A variant added or removed keeps the weights one per variant: a new one starts empty, to be filled in.
  const addVariant = () => change({ ...draft, variants: [...draft.variants, ''], weights: draft.weights && [...draft.weights, ''] });
  const removeVariant = (i: number) =>
    change({ ...draft, variants: draft.variants.filter((_, j) => j !== i), weights: draft.weights && draft.weights.filter((_, j) => j !== i) });
  const invalid = Object.keys(problems).length > 0 || Object.keys(settings.problems).length > 0 || settings.cupedDaysProblem !== undefined || error !== null;
  const setVariant = (i: number, value: string) => change({ ...draft, variants: draft.variants.map((v, j) => (j === i ? value : v)) });
  // One primary action at a time: Save while there is something to save, else Start.
  const startIsPrimary = experiment !== undefined && !dirty;

  return (
    <>
      <Breadcrumb projectId={projectId} />
      <div class="page-heading">
        <h1>{experiment ? experiment.name : 'New experiment'}</h1>
        {experiment && <StatusBadge status={experiment.status} />}
      </div>
      {invalid && (
        <p class="error" role="alert">
          {formError ?? (experiment ? 'Not saved: fix the fields marked below.' : 'Not created: fix the fields marked below.')}
        </p>
      )}
      <p role="status" class="status-line">
        {notice}
      </p>
      {!canWrite && <ReadOnlyNote needed="experimenter" what="edit and start experiments" />}
      <form
        class="stack-form experiment-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save(e.currentTarget);
        }}
      >
        <fieldset disabled={busy || !canWrite}>
          <legend class="visually-hidden">Experiment settings</legend>
          <Field id="experiment-name" label="Name" error={fieldError('name')}>
            <input type="text" name="name" autoComplete="off" value={draft.name} onInput={(e) => change({ ...draft, name: e.currentTarget.value })} />
          </Field>
          <Field
            id="experiment-goal"
            label="Goal event"
            hint={
              names.length > 0
                ? `Pick one of the ${names.length} event names seen recently, or type a name.`
                : 'No events seen recently: type the name of the event that counts as a conversion.'
            }
            error={fieldError('goal_event')}
          >
            <input
              type="text"
              name="goal_event"
              autoComplete="off"
              list="recent-event-names"
              value={draft.goal_event}
              onInput={(e) => change({ ...draft, goal_event: e.currentTarget.value })}
            />
          </Field>
          <EventNameOptions id="recent-event-names" names={names} />
          <fieldset
            class={variantsError ? 'field variants-field field-invalid' : 'field variants-field'}
            aria-describedby={variantsError ? 'variants-error' : undefined}
          >
            <legend>Variants (the first is the control) and their shares of users</legend>
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
                  {weighted && (
                    <span class="weight-input">
                      <label class="visually-hidden" for={`weight-${i}`}>
                        {`Weight of variant ${i + 1} in percent`}
                      </label>
                      <input
                        type="text"
                        inputMode="numeric"
                        id={`weight-${i}`}
                        name={`weight-${i}`}
                        autoComplete="off"
                        size={3}
                        value={draft.weights![i] ?? ''}
                        aria-invalid={weightsError ? 'true' : undefined}
                        aria-describedby={weightsError ? 'weights-error' : undefined}
                        onInput={(e) => setWeight(i, e.currentTarget.value)}
                      />
                      %
                    </span>
                  )}
                  {i === 0 && <span class="hint"> control</span>}
                  {draft.variants.length > 2 && (
                    <button type="button" class="secondary small" onClick={() => removeVariant(i)} aria-label={`Remove variant ${i + 1}`}>
                      Remove
                    </button>
                  )}
                </li>
              ))}
            </ol>
            <button type="button" class="secondary" onClick={addVariant}>
              Add variant
            </button>
            {variantsError && (
              <p class="field-error" id="variants-error">
                {variantsError}
              </p>
            )}
            <label class="check equal-split">
              <input
                type="checkbox"
                name="equal_split"
                checked={!weighted}
                onChange={(e) => change({ ...draft, weights: e.currentTarget.checked ? null : nearlyEqualWeights(draft.variants.length).map(String) })}
              />{' '}
              Split users equally between the variants
            </label>
            {weighted ? (
              <p class="hint" id="weights-total">
                Each variant's share of users, in whole percent: together {total}% of 100%. Send a risky change to few users, for example 90% control and 10%
                treatment.
              </p>
            ) : (
              <p class="hint">Untick to give each variant its own share of users, for example 90% and 10%.</p>
            )}
            {weightsError && (
              <p class="field-error" id="weights-error">
                {weightsError}
              </p>
            )}
          </fieldset>
          <MetricSettingsFields settings={settings} error={error} eventList="recent-event-names" />
          <PlanningCalculator
            api={api}
            projectId={projectId}
            goalEvent={draft.goal_event}
            variants={draft.variants.map((v) => v.trim())}
            weights={draftWeights(draft)}
            sequential={settings.draft.sequential}
            cuped={settings.draft.cuped}
            cupedLookbackDays={settings.cupedDaysProblem === undefined ? Number(settings.draft.cupedDays.trim()) : undefined}
            planned={planned}
          />
          <Field id="experiment-description" label="Description" hint="Optional: what you change and what you expect." error={fieldError('description')}>
            <textarea name="description" rows={3} value={draft.description} onInput={(e) => change({ ...draft, description: e.currentTarget.value })} />
          </Field>
          {canWrite && (
            <div class="toolbar lifecycle">
              <button type="submit" class={startIsPrimary ? 'secondary' : undefined} disabled={experiment !== undefined && !dirty}>
                Save
              </button>
              {experiment && (
                <button
                  type="button"
                  class={startIsPrimary ? undefined : 'secondary'}
                  disabled={transition.busy || dirty}
                  aria-describedby={dirty ? 'start-hint' : undefined}
                  onClick={() => transition.ask('start')}
                >
                  Start
                </button>
              )}
              {experiment && dirty && (
                <p class="hint" id="start-hint">
                  Save your changes before starting.
                </p>
              )}
            </div>
          )}
        </fieldset>
      </form>
      {transition.dialogs}
    </>
  );
}

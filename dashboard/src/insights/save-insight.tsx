/**
 * Saved insights on an insight page: the saved insight the page was opened from (its name as the
 * page's heading, Rename in place), "Update" to store the definition that ran into it, and "Save as"
 * a new one; saving under a name another saved insight of the project has asks whether to replace
 * that one (the dashboard checks the project's list: names are not unique in the API, docs/dashboard.md).
 */
import { useCan } from '../role';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ApiClient } from '../api';
import { errorText } from '../components/async-view';
import { ConfirmDialog } from '../components/confirm-dialog';
import { RenamableHeading } from '../components/renamable-heading';
import { Field } from '../components/field';
import { readInsightHash, setSavedIdInHash } from './hash-state';
import { savedInsightsPath, type SavedInsight } from './saved-insights';

export interface OpenedInsight {
  /** The saved insight the page shows, once loaded. */
  insight: SavedInsight | undefined;
  /** Why it could not be loaded (e.g. deleted since the link was made). */
  error: string | undefined;
  /** After a save, rename or update: the page now shows this saved insight. */
  set(insight: SavedInsight): void;
}

/** The saved insight named by the page's address (`s=`), followed across navigations. */
export function useOpenedInsight(api: ApiClient, projectId: string): OpenedInsight {
  const [savedId, setSavedId] = useState(() => readInsightHash().savedId);
  const [insight, setInsight] = useState<SavedInsight | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    const onChange = () => setSavedId(readInsightHash().savedId);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  useEffect(() => {
    setError(undefined);
    if (savedId === undefined) {
      setInsight(undefined);
      return;
    }
    if (insight?.id === savedId) return;
    let live = true;
    api.get<SavedInsight>(`${savedInsightsPath(projectId)}/${encodeURIComponent(savedId)}`).then(
      (found) => live && setInsight(found),
      (err: unknown) => {
        if (!live) return;
        setInsight(undefined);
        setError(
          err instanceof ApiError && err.status === 404
            ? 'The saved insight this link names was deleted: the page shows the definition the link holds. Save it again to keep it.'
            : `Could not load the saved insight: ${errorText(err)}`,
        );
      },
    );
    return () => {
      live = false;
    };
  }, [api, projectId, savedId]);
  return {
    insight,
    error,
    set: (next) => {
      setInsight(next);
      setSavedId(next.id);
      setSavedIdInHash(next.id);
    },
  };
}

/** The page's heading: the saved insight's name when it was opened from one (with Rename), else the kind's title. */
export function InsightTitle({ api, projectId, title, opened }: { api: ApiClient; projectId: string; title: string; opened: OpenedInsight }) {
  const insight = opened.insight;
  const canRename = useCan('analyst');
  if (!insight) {
    return (
      <>
        <h1>{title}</h1>
        {opened.error && (
          <p class="error" role="alert">
            {opened.error}
          </p>
        )}
      </>
    );
  }
  return (
    <RenamableHeading
      name={insight.name}
      kicker={`${title} · saved insight`}
      onRename={
        canRename
          ? async (name) => opened.set(await api.patch<SavedInsight>(`${savedInsightsPath(projectId)}/${encodeURIComponent(insight.id)}`, { name }))
          : undefined
      }
    />
  );
}

const sameName = (a: string, b: string) => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

/** "Save insight" for the roles that may save insights (analyst and up); nothing for a viewer. */
export function SaveInsight(props: Parameters<typeof SaveInsightForm>[0]) {
  return useCan('analyst') ? <SaveInsightForm {...props} /> : null;
}

function SaveInsightForm({
  api,
  projectId,
  kind,
  definition,
  opened,
}: {
  api: ApiClient;
  projectId: string;
  kind: string;
  definition: unknown;
  opened?: OpenedInsight;
}) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState('');
  /** A saved insight with the name typed, waiting for "Replace". */
  const [clash, setClash] = useState<SavedInsight | undefined>(undefined);
  const current = opened?.insight?.kind === kind ? opened.insight : undefined;
  const path = savedInsightsPath(projectId);
  const one = (id: string) => `${path}/${encodeURIComponent(id)}`;

  async function attempt(work: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err instanceof ApiError ? (err.forField('name') ?? err.message) : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const done = (insight: SavedInsight, words: string) => {
    opened?.set(insight);
    setStatus(`${words} “${insight.name}”: it is listed under Insights.`);
  };

  const save = (e: Event) => {
    e.preventDefault();
    if (name.trim() === '') {
      setError('Give the insight a name, for example “Signups by platform”.');
      return;
    }
    void attempt(async () => {
      const existing = (await api.get<{ saved_insights: SavedInsight[] }>(path)).saved_insights.find((s) => sameName(s.name, name));
      if (existing) {
        setClash(existing);
        return;
      }
      done(await api.post<SavedInsight>(path, { name, kind, definition }), 'Saved as');
    });
  };

  const replace = () =>
    void attempt(async () => {
      if (!clash) return;
      // The same kind keeps its ID (links and dashboards showing it follow); another kind cannot change in place.
      const replaced =
        clash.kind === kind
          ? await api.patch<SavedInsight>(one(clash.id), { name: name.trim(), definition })
          : await api.delete(one(clash.id)).then(() => api.post<SavedInsight>(path, { name, kind, definition }));
      setClash(undefined);
      done(replaced, 'Replaced');
    });

  const update = () =>
    void attempt(async () => {
      if (current) done(await api.patch<SavedInsight>(one(current.id), { definition }), 'Updated');
    });

  return (
    <>
      <form class="inline-form save-insight" onSubmit={save} noValidate>
        {current && (
          <button type="button" disabled={busy} onClick={update}>
            Update “{current.name}”
          </button>
        )}
        <Field id="save-insight-name" label={current ? 'Or save as new' : 'Save as'} error={error}>
          <input type="text" autoComplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="secondary" disabled={busy}>
          Save insight
        </button>
        <p role="status" class="status-line">
          {status}
        </p>
      </form>
      <ConfirmDialog
        open={clash !== undefined}
        title="Replace the saved insight?"
        confirmLabel="Replace"
        busy={busy}
        error={clash ? (error ?? null) : null}
        onConfirm={replace}
        onCancel={() => {
          setClash(undefined);
          setError(undefined);
        }}
      >
        <p>A saved insight named “{clash?.name}” exists already. Replace it with this one? Its links and the dashboards showing it then show this insight.</p>
      </ConfirmDialog>
    </>
  );
}

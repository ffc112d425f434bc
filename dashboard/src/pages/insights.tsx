/**
 * The project's insights: one page per kind (INSIGHT_PAGES: trends, funnels, retention), and the
 * saved insights, each a link that opens and runs it (shareable), with Delete.
 */
import { useState } from 'preact/hooks';
import { errorText, useAsync } from '../components/async-view';
import { ConfirmDialog } from '../components/confirm-dialog';
import { formatTime } from '../format-time';
import { savedInsightHref, savedInsightsPath, type SavedInsight } from '../insights/saved-insights';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import { useCan } from '../role';
import { ReadOnlyNote } from '../components/read-only-note';
import '../insights/insights.css';

/** Each kind's page, in the order shown. */
export const INSIGHT_PAGES = [
  {
    segment: 'trends',
    title: 'Trends',
    description: 'How many events happened, or how many people did them, per hour, day or week; broken down and against the previous period.',
  },
  {
    segment: 'funnels',
    title: 'Funnels',
    description: 'How many people go through steps in order within a window: conversion and drop-off at each step, the time between steps; broken down.',
  },
  {
    segment: 'retention',
    title: 'Retention',
    description: 'Of the people who first did something on a day or in a week, how many came back in each later day or week.',
  },
];

const kindTitle = (kind: string) => INSIGHT_PAGES.find((p) => p.segment === kind)?.title ?? kind;

export function InsightsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const saved = useAsync(() => api.get<{ saved_insights: SavedInsight[] }>(savedInsightsPath(projectId)), [api, projectId]);
  const [deleting, setDeleting] = useState<SavedInsight | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const canChange = useCan('analyst');

  async function remove() {
    if (!deleting) return;
    setBusy(true);
    setDeleteError(null);
    try {
      await api.delete(`${savedInsightsPath(projectId)}/${encodeURIComponent(deleting.id)}`);
      setDeleting(undefined);
      await saved.reload();
    } catch (err) {
      setDeleteError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const list = saved.data?.saved_insights;
  return (
    <>
      <h1>Insights</h1>
      <p>Answers from the project's events without writing SQL. Each page shows the exact query it ran.</p>
      <ul class="insight-kinds">
        {INSIGHT_PAGES.map((k) => (
          <li key={k.segment}>
            <a href={`#${pathOf('projects', projectId, 'insights', k.segment)}`}>{k.title}</a>: {k.description}
          </li>
        ))}
      </ul>
      <h2>Saved insights</h2>
      {!canChange && <ReadOnlyNote needed="analyst" what="run, save and delete insights" />}
      {saved.error !== null && (
        <p class="error" role="alert">
          Could not load the saved insights: {saved.error}
        </p>
      )}
      {list === undefined ? (
        saved.error === null && (
          <p class="muted" role="status">
            Loading…
          </p>
        )
      ) : list.length === 0 ? (
        <p class="empty-state">None yet. Run an insight and press Save insight under its answer.</p>
      ) : (
        <ul class="saved-insights">
          {list.map((s) => (
            <li key={s.id}>
              <a href={savedInsightHref(projectId, s)}>{s.name}</a>{' '}
              <span class="muted">
                ({kindTitle(s.kind)}, saved {formatTime(s.updated_at)})
              </span>{' '}
              {canChange && (
                <button type="button" class="secondary" onClick={() => setDeleting(s)} aria-label={`Delete ${s.name}`}>
                  Delete
                </button>
              )}
              {s.problem && <p class="error">This insight no longer runs as saved: {s.problem}. Open it, correct the field and save it again, or delete it.</p>}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this saved insight?"
        confirmLabel="Delete"
        busy={busy}
        error={deleteError}
        onConfirm={() => void remove()}
        onCancel={() => {
          setDeleting(undefined);
          setDeleteError(null);
        }}
      >
        <p>“{deleting?.name}” is removed from the list; links to it still open its insight.</p>
      </ConfirmDialog>
    </>
  );
}

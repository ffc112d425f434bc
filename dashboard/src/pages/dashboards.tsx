/**
 * Dashboards (docs/dashboard.md "Dashboards"; docs/api.md "Dashboards"): the project's list with
 * "New dashboard", and a dashboard's page: its saved insights as tiles, each run again when the page
 * opens (a relative range resolved to today's days), with one range for all of them in place of each
 * insight's own; tiles added, removed, and a tile whose insight was deleted shown as such with Remove.
 * Creating and changing dashboards, and running their insights, needs the analyst role (lambdas/routes.ts):
 * a viewer sees the list and each dashboard's tiles by name and range, with a line saying so.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { errorText, useAsync } from '../components/async-view';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { RenamableHeading } from '../components/renamable-heading';
import { formatTime } from '../format-time';
import { FunnelChart } from '../insights/funnel-chart';
import type { FunnelsResult, RetentionResult } from '../insights/funnel-types';
import { InsightProgress } from '../insights/insight-progress';
import { RangeOptions } from '../insights/range-fields';
import type { TrendsResult } from '../insights/insight-types';
import { RetentionTable } from '../insights/retention-table';
import { savedInsightHref, savedInsightsPath, type SavedInsight } from '../insights/saved-insights';
import { TrendTotals } from '../insights/trend-chart';
import { useInsightQuery } from '../insights/use-insight-query';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';
import { today } from '../today';
import { breakdownLabel } from '../../../lambdas/domain/insights/breakdown-line';
import type { DashboardRange } from '../../../lambdas/domain/insights/dashboard';
import { RANGE_LABELS, isRelativeRange, resolveRange, withResolvedRange, type RangeKind } from '../../../lambdas/domain/insights/relative-range';
import { INSIGHT_PAGES } from './insights';
import { useCan } from '../role';
import { ReadOnlyNote } from '../components/read-only-note';
import '../results/results.css';
import '../insights/insights.css';

interface Dashboard {
  id: string;
  name: string;
  tiles: Array<{ saved_insight_id: string; insight?: SavedInsight | null }>;
  range_override: DashboardRange | null;
  created_at: string;
  updated_at: string;
}

const dashboardsPath = (projectId: string) => `/admin/v1/projects/${encodeURIComponent(projectId)}/dashboards`;
const kindTitle = (kind: string) => INSIGHT_PAGES.find((p) => p.segment === kind)?.title ?? kind;

/** A tile's definition as it runs today: the dashboard's range in place of its own, else its own (a relative one resolved). */
export function tileDefinition(definition: unknown, override: DashboardRange | null, day: string): unknown {
  if (typeof definition !== 'object' || definition === null) return definition;
  if (override === null) return withResolvedRange(definition, day);
  if (isRelativeRange(override.range)) return { ...definition, range: override.range, ...resolveRange(override.range, day) };
  const { range: _own, ...fixed } = definition as Record<string, unknown>;
  return { ...fixed, date_from: override.date_from, date_to: override.date_to };
}

export function DashboardsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const list = useAsync(() => api.get<{ dashboards: Dashboard[] }>(dashboardsPath(projectId)), [api, projectId]);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const canChange = useCan('analyst');

  async function create(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api.post<Dashboard>(dashboardsPath(projectId), { name });
      navigate(pathOf('projects', projectId, 'dashboards', created.id));
    } catch (err) {
      setError(err instanceof ApiError ? (err.forField('name') ?? err.message) : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const dashboards = list.data?.dashboards;
  return (
    <>
      <h1>Dashboards</h1>
      <p>A dashboard shows several saved insights on one page, each run again when the page opens, over their own range or one range for all.</p>
      {!canChange && <ReadOnlyNote needed="analyst" what="create and change dashboards" />}
      {canChange && (
        <form class="inline-form" onSubmit={(e) => void create(e)} noValidate>
          <Field id="dashboard-name" label="New dashboard" error={error}>
            <input type="text" autoComplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={busy}>
            Create dashboard
          </button>
        </form>
      )}
      {list.error !== null && (
        <p class="error" role="alert">
          Could not load the dashboards: {list.error}
        </p>
      )}
      {dashboards === undefined ? (
        list.error === null && (
          <p class="muted" role="status">
            Loading…
          </p>
        )
      ) : dashboards.length === 0 ? (
        <p class="empty-state">{canChange ? 'None yet. Name one above, then add saved insights to it.' : 'None yet.'}</p>
      ) : (
        <ul class="saved-insights dashboards-list">
          {dashboards.map((d) => (
            <li key={d.id}>
              <a href={`#${pathOf('projects', projectId, 'dashboards', d.id)}`}>{d.name}</a>{' '}
              <span class="muted">
                ({d.tiles.length} {d.tiles.length === 1 ? 'insight' : 'insights'}, changed {formatTime(d.updated_at)})
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function TileResult({ kind, answer }: { kind: string; answer: { result?: unknown } }) {
  if (kind === 'trends') return <TrendTotals result={answer.result as TrendsResult} />;
  if (kind === 'funnels')
    return (
      <>
        {(answer.result as FunnelsResult).groups.map((g) => (
          <FunnelChart key={`${g.breakdown_kind}:${g.breakdown_value}`} group={g} title={breakdownLabel(g) ?? 'All users'} />
        ))}
      </>
    );
  return <RetentionTable result={answer.result as RetentionResult} />;
}

function Tile({
  api,
  projectId,
  insight,
  override,
  onRemove,
}: PageProps & { projectId: string; insight: SavedInsight; override: DashboardRange | null; onRemove?: () => void }) {
  const definition = tileDefinition(insight.definition, override, today());
  const { state, start } = useInsightQuery<unknown>(api, projectId, insight.kind, () => undefined);
  const key = JSON.stringify(definition);
  useEffect(() => start(definition), [key]);
  const d = definition as { range?: string; date_from?: string; date_to?: string };
  const range = isRelativeRange(d.range) ? `${RANGE_LABELS[d.range]}: ` : '';
  return (
    <section class="dashboard-tile" aria-label={insight.name}>
      <h2>
        <a href={savedInsightHref(projectId, { ...insight, definition })}>{insight.name}</a>
      </h2>
      <p class="muted">
        {kindTitle(insight.kind)} · {range}
        {d.date_from} to {d.date_to}
      </p>
      <InsightProgress state={state} />
      {state.phase === 'error' && (
        <p class="error" role="alert">
          {errorText(state.error)}
        </p>
      )}
      {state.phase === 'done' && state.answer && <TileResult kind={insight.kind} answer={state.answer} />}
      {onRemove && (
        <button type="button" class="secondary" onClick={onRemove} aria-label={`Remove ${insight.name} from the dashboard`}>
          Remove
        </button>
      )}
    </section>
  );
}

export function DashboardPage(props: PageProps) {
  const { api, params } = props;
  const { projectId, dashboardId } = params as { projectId: string; dashboardId: string };
  const path = `${dashboardsPath(projectId)}/${encodeURIComponent(dashboardId)}`;
  const dashboard = useAsync(() => api.get<Dashboard>(path), [api, path]);
  const saved = useAsync(() => api.get<{ saved_insights: SavedInsight[] }>(savedInsightsPath(projectId)), [api, projectId]);
  const [adding, setAdding] = useState('');
  const [range, setRange] = useState<DashboardRange | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const canChange = useCan('analyst');
  const d = dashboard.data;
  const shownRange = range === undefined ? (d?.range_override ?? null) : range;

  async function change(body: Record<string, unknown>) {
    setBusy(true);
    setError(null);
    try {
      await api.patch(path, body);
      await dashboard.reload();
      setRange(undefined);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }
  const tilesWithout = (id: string) => d!.tiles.filter((t) => t.saved_insight_id !== id).map((t) => ({ saved_insight_id: t.saved_insight_id }));

  async function remove() {
    setBusy(true);
    try {
      await api.delete(path);
      navigate(pathOf('projects', projectId, 'dashboards'));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  if (!d) {
    return (
      <>
        <p class="breadcrumb">
          <a href={`#${pathOf('projects', projectId, 'dashboards')}`}>Dashboards</a>
        </p>
        {dashboard.error !== null ? (
          <p class="error" role="alert">
            Could not load the dashboard: {dashboard.error}
          </p>
        ) : (
          <p class="muted" role="status">
            Loading…
          </p>
        )}
      </>
    );
  }
  const shown = new Set(d.tiles.map((t) => t.saved_insight_id));
  const addable = (saved.data?.saved_insights ?? []).filter((s) => !shown.has(s.id));
  const rangeKind: RangeKind | '' = shownRange?.range ?? '';
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'dashboards')}`}>Dashboards</a>
      </p>
      <RenamableHeading
        name={d.name}
        kicker="Dashboard"
        onRename={
          canChange
            ? async (name) => {
                await api.patch(path, { name });
                await dashboard.reload();
              }
            : undefined
        }
      />
      {!canChange && <ReadOnlyNote needed="analyst" what="run this dashboard's insights and change it" />}
      {canChange && (
        <form
          class="inline-form dashboard-range"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void change({ range_override: shownRange });
          }}
        >
          <Field id="dashboard-range" label="Range of every insight">
            <select
              value={rangeKind}
              onChange={(e) => {
                const kind = e.currentTarget.value as RangeKind | '';
                if (kind === '') setRange(null);
                else if (kind === 'custom') setRange({ range: 'custom', date_from: resolveRange('last_7_days', today()).date_from, date_to: today() });
                else setRange({ range: kind });
              }}
            >
              <option value="">Each insight's own</option>
              <RangeOptions />
            </select>
          </Field>
          {shownRange?.range === 'custom' && (
            <>
              <Field id="dashboard-from" label="From (day, each project's time zone)">
                <input type="date" value={shownRange.date_from} onInput={(e) => setRange({ ...shownRange, date_from: e.currentTarget.value })} />
              </Field>
              <Field id="dashboard-to" label="To (day, included)">
                <input type="date" value={shownRange.date_to} onInput={(e) => setRange({ ...shownRange, date_to: e.currentTarget.value })} />
              </Field>
            </>
          )}
          <button type="submit" disabled={busy || range === undefined}>
            Apply range
          </button>
        </form>
      )}
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {d.tiles.length === 0 && <p class="empty-state">No insights on this dashboard yet{canChange ? ': add saved insights below' : ''}.</p>}
      <div class="dashboard-tiles">
        {d.tiles.map((t) =>
          t.insight ? (
            <Tile
              key={`${t.saved_insight_id}:${JSON.stringify(d.range_override)}`}
              {...props}
              projectId={projectId}
              insight={t.insight}
              override={d.range_override}
              onRemove={canChange ? () => void change({ tiles: tilesWithout(t.saved_insight_id) }) : undefined}
            />
          ) : (
            <section key={t.saved_insight_id} class="dashboard-tile dashboard-tile-deleted" aria-label="A deleted saved insight">
              <h2>Deleted insight</h2>
              <p>The saved insight this tile showed was deleted.{canChange && ' Remove the tile, or add another insight.'}</p>
              {canChange && (
                <button type="button" class="secondary" onClick={() => void change({ tiles: tilesWithout(t.saved_insight_id) })}>
                  Remove the deleted insight
                </button>
              )}
            </section>
          ),
        )}
      </div>
      {canChange && (
        <>
          <form
            class="inline-form"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              const added = adding;
              // Cleared once added, unless another insight was chosen meanwhile (that choice is kept).
              if (added)
                void change({ tiles: [...d.tiles.map((t) => ({ saved_insight_id: t.saved_insight_id })), { saved_insight_id: added }] }).then(() =>
                  setAdding((current) => (current === added ? '' : current)),
                );
            }}
          >
            <Field id="dashboard-add" label="Add a saved insight">
              <select value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
                <option value="">{addable.length ? 'Choose one…' : 'Every saved insight is on the dashboard'}</option>
                {addable.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name} ({kindTitle(s.kind)})
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit" class="secondary" disabled={busy || adding === ''}>
              Add to dashboard
            </button>
          </form>
          <p>
            <button type="button" class="secondary danger-text" onClick={() => setDeleting(true)}>
              Delete dashboard
            </button>
          </p>
        </>
      )}
      <ConfirmDialog
        open={deleting}
        title="Delete this dashboard?"
        confirmLabel="Delete"
        busy={busy}
        error={error}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(false)}
      >
        <p>“{d.name}” is removed; its saved insights stay.</p>
      </ConfirmDialog>
    </>
  );
}

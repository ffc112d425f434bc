/**
 * Deletions (admin role): the project's requests to delete a person, newest first, with their state,
 * who asked and when, when they are due and when they finished; one deletion's page shows the IDs it
 * found and its receipt (each store, what it removed, when). A list or a deletion still pending or
 * running is read again every few seconds while the page is open. IDs and reasons are client or
 * operator text: rendered as text nodes, never as markup.
 */
import { useState } from 'preact/hooks';
import type { DeletionView } from '../admin-types';
import { AsyncView, errorText, useAsync, useRefreshWhile } from '../components/async-view';
import { LoadMore, type LoadMoreState } from '../components/load-more';
import { ListTable } from '../components/list-table';
import { ReadOnlyNote } from '../components/read-only-note';
import { StatusBadge } from '../components/status-badge';
import { RECEIPT_STORES, removedText, suppressText } from '../privacy-words';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';
import { useCan } from '../role';
import { pathOf } from '../router';

const DELETIONS_LISTED = 50;

const unfinished = (d: DeletionView) => d.state !== 'done';

export function DeletionsPage({ api, params }: PageProps) {
  const projectPath = pathOf('projects', params.projectId!);
  const canSee = useCan('admin');
  const id = params.deletionId;
  if (!canSee)
    return (
      <>
        <h1>Deletions</h1>
        <ReadOnlyNote needed="admin" what="see and request people’s deletions" />
      </>
    );
  return id === undefined ? <DeletionList api={api} projectPath={projectPath} /> : <DeletionDetails key={id} api={api} projectPath={projectPath} id={id} />;
}

interface ListAnswer {
  deletions: DeletionView[];
  next_cursor: string | null;
}

function DeletionList({ api, projectPath }: { api: PageProps['api']; projectPath: string }) {
  const list = useAsync(() => api.get<ListAnswer>(`/admin/v1${projectPath}/deletions?limit=${DELETIONS_LISTED}`), [api, projectPath]);
  const [more, setMore] = useState<LoadMoreState>({ loading: false, error: null });
  useRefreshWhile(list.reload, list.data?.deletions.some(unfinished) ?? false);
  const loadMore = async () => {
    const shown = list.data;
    if (!shown?.next_cursor) return;
    setMore({ loading: true, error: null });
    try {
      const page = await api.get<ListAnswer>(
        `/admin/v1${projectPath}/deletions?${new URLSearchParams({ limit: String(DELETIONS_LISTED), cursor: shown.next_cursor })}`,
      );
      const known = new Set(shown.deletions.map((d) => d.id));
      list.set({ deletions: [...shown.deletions, ...page.deletions.filter((d) => !known.has(d.id))], next_cursor: page.next_cursor });
      setMore({ loading: false, error: null });
    } catch (err) {
      setMore({ loading: false, error: errorText(err) });
    }
  };
  const href = (d: DeletionView) => `#${projectPath}/deletions/${encodeURIComponent(d.id)}`;
  return (
    <>
      <h1>Deletions</h1>
      <p class="muted">
        Requests to delete a person, newest first. The compaction job carries each out on its next run (every minute locally, every 15 minutes on AWS); by “Due
        by” every copy is physically gone. To request one, open the person on <a href={`#${projectPath}/users`}>People</a> and press “Delete this person”.
      </p>
      <AsyncView state={list}>
        {({ deletions, next_cursor }) =>
          deletions.length === 0 ? (
            <p class="muted" role="status">
              No deletion has been requested in this project.
            </p>
          ) : (
            <>
              <ListTable
                columns={['Person (ID asked for)', 'State', 'Requested by', 'Requested', 'Due by', 'Finished']}
                action="Details"
                name="deletions-table"
              >
                {deletions.map((d) => (
                  <tr key={d.id}>
                    <td data-label="Person">
                      <a href={href(d)} class="mono">
                        {d.user_id}
                      </a>
                    </td>
                    <td data-label="State">
                      <StatusBadge status={d.state} />
                    </td>
                    <td data-label="Requested by" class="wrap-anywhere">
                      {d.requested_by}
                    </td>
                    <td data-label="Requested" class="nowrap">
                      {formatTime(d.requested_at)}
                    </td>
                    <td data-label="Due by" class="nowrap">
                      {formatTime(d.due_by)}
                    </td>
                    <td data-label="Finished" class="nowrap">
                      {d.finished_at ? formatTime(d.finished_at) : <span class="muted">—</span>}
                    </td>
                    <td>
                      <a href={href(d)} aria-label={`Details of the deletion of ${d.user_id}`}>
                        Details
                      </a>
                    </td>
                  </tr>
                ))}
              </ListTable>
              <LoadMore more={more} hasMore={next_cursor !== null} onLoad={() => void loadMore()} />
            </>
          )
        }
      </AsyncView>
    </>
  );
}

function DeletionDetails({ api, projectPath, id }: { api: PageProps['api']; projectPath: string; id: string }) {
  const one = useAsync(
    async () => (await api.get<{ deletion: DeletionView }>(`/admin/v1${projectPath}/deletions/${encodeURIComponent(id)}`)).deletion,
    [api, projectPath, id],
  );
  useRefreshWhile(one.reload, one.data !== undefined && unfinished(one.data));
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${projectPath}/deletions`}>Deletions</a>
      </p>
      <h1>Deletion</h1>
      <AsyncView state={one}>
        {(d) => (
          <>
            <section aria-label="The request">
              <dl class="facts">
                <dt>ID asked for</dt>
                <dd class="mono">{d.user_id}</dd>
                <dt>State</dt>
                <dd>
                  <StatusBadge status={d.state} />{' '}
                  <span class="muted" role="status">
                    {d.state === 'pending'
                      ? 'Waiting for the compaction job’s next run. This page updates by itself.'
                      : d.state === 'running'
                        ? 'Being carried out, one store after another. This page updates by itself.'
                        : 'Every store is done.'}
                  </span>
                </dd>
                <dt>The person’s IDs</dt>
                <dd>
                  {d.ids ? (
                    <ul class="plain mono">
                      {d.ids.map((i) => (
                        <li key={i}>{i}</li>
                      ))}
                    </ul>
                  ) : (
                    <span class="muted">Not looked up yet</span>
                  )}
                </dd>
                <dt>Reason</dt>
                <dd class="wrap-anywhere">{d.reason ?? <span class="muted">—</span>}</dd>
                <dt>Future events</dt>
                <dd>{suppressText(d.suppress)}</dd>
                <dt>Requested by</dt>
                <dd class="wrap-anywhere">{d.requested_by}</dd>
                <dt>Requested</dt>
                <dd>{formatTime(d.requested_at)}</dd>
                <dt>Due by</dt>
                <dd>{formatTime(d.due_by)} (every copy physically gone)</dd>
                <dt>Finished</dt>
                <dd>{d.finished_at ? formatTime(d.finished_at) : <span class="muted">—</span>}</dd>
                {d.sweep_until && (
                  <>
                    <dt>Late deliveries</dt>
                    <dd>
                      Swept again after each run of the job until {formatTime(d.sweep_until)}: events received before the request that arrive late are removed
                      too, and added to the receipt’s lines.
                    </dd>
                  </>
                )}
              </dl>
            </section>
            <section aria-labelledby="deletion-receipt">
              <h2 id="deletion-receipt">Receipt</h2>
              {(d.receipt ?? []).length === 0 ? (
                <p class="muted">Nothing removed yet: each store’s line appears here as the deletion finishes it.</p>
              ) : (
                <div class="table-wrap">
                  <table class="receipt">
                    <thead>
                      <tr>
                        <th scope="col">Store</th>
                        <th scope="col" class="num">
                          Removed
                        </th>
                        <th scope="col">When</th>
                      </tr>
                    </thead>
                    <tbody>
                      {(d.receipt ?? []).map((line) => (
                        <tr key={line.store}>
                          <td>{RECEIPT_STORES[line.store].name}</td>
                          <td class="num">{removedText(line)}</td>
                          <td>{formatTime(line.at)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </AsyncView>
    </>
  );
}

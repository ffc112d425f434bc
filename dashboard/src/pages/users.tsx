/**
 * People (the API path stays /users): the people seen recently (the recent-users listing: the person
 * by email, else name, else the ID they sent most recently, with the canonical ID on hover and under
 * it; linked IDs, events, first and last seen), the most recent first, searched by email, name or any
 * ID; each row opens the person's page. One person (any ID, canonical or linked, also one not seen
 * recently), headed by the same label: the canonical ID, every linked ID, the profile, first seen (the
 * earliest event's time, as in People), last seen (the newest listed event's, as in People) and their
 * recent events under every linked ID.
 * Names, emails and IDs are client text: rendered as text nodes, never as markup.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { textProblem } from '../../../lambdas/domain/client-text';
import { personLabel } from '../../../lambdas/domain/person-label';
import type { RecentUser, StoredEvent, User } from '../admin-types';
import { AsyncView, errorText, useAsync } from '../components/async-view';
import { EventList, type People } from '../components/event-list';
import { DeletePerson } from '../components/delete-person';
import { ExportPerson } from '../components/export-person';
import { Field } from '../components/field';
import { ReadOnlyNote } from '../components/read-only-note';
import { LoadMore, type LoadMoreState } from '../components/load-more';
import { ListTable } from '../components/list-table';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';
import { useCan } from '../role';
import { navigate, pathOf } from '../router';

/** People listed at once, and added by each "Load more" (the API allows up to 200 a page). */
const USERS_LISTED = 50;

export function UsersPage({ api, params }: PageProps) {
  const projectPath = pathOf('projects', params.projectId!);
  const userId = params.userId;
  if (userId === undefined) return <RecentUsers api={api} projectPath={projectPath} />;
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${projectPath}/users`}>People</a>
      </p>
      {userId === '.' || userId === '..' ? (
        // URLs read these as path steps ("%2E" too), so GET .../users/{id} can never name them.
        <>
          <h1>Person</h1>
          <p role="alert" class="notice">
            The ID “{userId}” cannot be looked up: URLs read it as a path step. Filter <a href={`#${projectPath}/events`}>Events</a> by this user ID instead.
          </p>
        </>
      ) : (
        <UserDetails key={userId} api={api} projectPath={projectPath} userId={userId} />
      )}
    </>
  );
}

/** One answer of the listing, with the search it was asked with. */
interface UsersAnswer {
  users: RecentUser[];
  next_cursor: string | null;
}

/** How a person is named (domain/person-label.ts): email, else name, else the ID they sent most recently. */
function labelOf(u: RecentUser): string {
  return personLabel({ user_id: u.user_id, email: u.email, name: u.name, recent_ids: u.ids });
}

function RecentUsers({ api, projectPath }: { api: PageProps['api']; projectPath: string }) {
  const [search, setSearch] = useState('');
  // The answer carries the search it was asked with: while a new search loads, the list shown and
  // the words above it still belong together.
  const list = useAsync(async () => {
    const q = new URLSearchParams({ limit: String(USERS_LISTED) });
    if (search) q.set('search', search);
    return { search, ...(await api.get<UsersAnswer>(`/admin/v1${projectPath}/users?${q}`)) };
  }, [api, projectPath, search]);
  // What is shown now, for an answer of "Load more" arriving after a new search began: it is dropped.
  const shownNow = useRef(list);
  shownNow.current = list;
  const [more, setMore] = useState<LoadMoreState>({ loading: false, error: null });
  // "Load more": the next page after the last person shown (the API's cursor), added below them.
  const loadMore = async () => {
    const shown = list.data;
    if (!shown?.next_cursor) return;
    const q = new URLSearchParams({ limit: String(USERS_LISTED), cursor: shown.next_cursor });
    if (shown.search) q.set('search', shown.search);
    setMore({ loading: true, error: null });
    try {
      const page = await api.get<UsersAnswer>(`/admin/v1${projectPath}/users?${q}`);
      if (shownNow.current.data !== shown || shownNow.current.loading) return setMore({ loading: false, error: null });
      const known = new Set(shown.users.map((u) => u.user_id));
      // A person seen again between two pages moves up and may come twice: shown once, where first listed.
      list.set({ search: shown.search, users: [...shown.users, ...page.users.filter((u) => !known.has(u.user_id))], next_cursor: page.next_cursor });
      setMore({ loading: false, error: null });
    } catch (err) {
      setMore({ loading: false, error: errorText(err) });
    }
  };
  const userPath = (id: string) => `${projectPath}/users/${encodeURIComponent(id)}`;
  const userHref = (id: string) => `#${userPath(id)}`;
  return (
    <>
      <h1>People</h1>
      <form
        class="inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(String(new FormData(e.currentTarget).get('search') ?? '').trim());
        }}
      >
        <Field id="search-users" label="Search people" hint="Part of an email, a name or any ID (a signed-in user's ID or an anonymous ID), any case.">
          <input name="search" type="search" autoComplete="off" />
        </Field>
        <button type="submit">Search</button>
      </form>
      <AsyncView state={list}>
        {({ users, search, next_cursor }) => (
          <>
            <p class="muted" role="status">
              {users.length === 0
                ? search
                  ? `No one seen recently has an email, name or ID containing “${search}”.`
                  : 'No one seen recently: people appear here with their first event.'
                : `${users.length === 1 ? 'The one person' : `The ${users.length} people`} seen most recently${search ? ` with an email, name or ID containing “${search}”` : ''}, the most recent first${next_cursor ? `; ${USERS_LISTED} more at a time with “Load more”` : ''}.`}
            </p>
            {search && users.length === 0 && (
              <p>
                <a href={userHref(search)}>Look up “{search}” as an exact ID</a> (also finds people with no recent events).
              </p>
            )}
            {users.length > 0 && (
              <ListTable columns={['Person', 'Email', 'Linked IDs', 'Events', 'First seen', 'Last seen']} action="Details" name="users-table">
                {users.map((u) => (
                  <tr
                    key={u.user_id}
                    class="opens"
                    onClick={(e) => {
                      // The whole row opens the person; a link inside it, or selecting text, does as it would anyway.
                      if ((e.target as Element).closest('a') || String(getSelection() ?? '') !== '') return;
                      navigate(userPath(u.user_id));
                    }}
                  >
                    <td data-label="Person">
                      {/* One child per cell: the narrow layout's cell is a grid of label and content. */}
                      <div>
                        <a href={userHref(u.user_id)} class={u.email === null && u.name === null ? 'mono' : undefined} title={`Canonical ID: ${u.user_id}`}>
                          {labelOf(u)}
                        </a>
                        {labelOf(u) !== u.user_id && <div class="mono muted">{u.user_id}</div>}
                      </div>
                    </td>
                    <td data-label="Email">{u.email ?? <span class="muted">—</span>}</td>
                    <td data-label="Linked IDs">
                      <div>
                        <ul class="plain mono">
                          {u.ids.map((id) => (
                            <li key={id}>{id}</li>
                          ))}
                        </ul>
                        {u.id_count > u.ids.length && <span class="muted">and {u.id_count - u.ids.length} more</span>}
                      </div>
                    </td>
                    <td class="num" data-label="Events">
                      {u.events.toLocaleString('en')}
                    </td>
                    <td data-label="First seen">{u.first_seen === null ? <span class="muted">—</span> : formatTime(u.first_seen)}</td>
                    <td data-label="Last seen">{formatTime(u.last_seen)}</td>
                    <td>
                      <a href={userHref(u.user_id)} aria-label={`Details of ${labelOf(u)}`}>
                        Details
                      </a>
                    </td>
                  </tr>
                ))}
              </ListTable>
            )}
            <LoadMore more={more} hasMore={next_cursor !== null} onLoad={() => void loadMore()} />
          </>
        )}
      </AsyncView>
    </>
  );
}

/** How the person page names a person (as People does, domain/person-label.ts). */
const userLabel = (u: User) => personLabel({ user_id: u.user_id, email: u.email, name: u.name, recent_ids: [...u.ids].reverse() });

function UserDetails({ api, projectPath, userId }: { api: PageProps['api']; projectPath: string; userId: string }) {
  const user = useAsync(() => api.get<User>(`/admin/v1${projectPath}/users/${encodeURIComponent(userId)}`), [api, projectPath, userId]);
  // The newest of the person's listed events (the listing is newest first): People's last seen.
  const [lastSeen, setLastSeen] = useState<string | null | undefined>(undefined);
  const canErase = useCan('admin');
  return (
    <>
      <h1>{user.data ? userLabel(user.data) : 'Person'}</h1>
      <AsyncView state={user}>
        {(u) => (
          <>
            <section aria-labelledby="user-profile">
              <h2 id="user-profile">Profile</h2>
              <dl class="facts">
                <dt>Canonical ID</dt>
                <dd class="mono">{u.user_id}</dd>
                <dt>Linked IDs</dt>
                <dd>
                  <ul class="plain mono">
                    {u.ids.map((id) => (
                      <li key={id}>{id}</li>
                    ))}
                  </ul>
                </dd>
                <dt>Email</dt>
                <dd>{u.email ?? <span class="muted">—</span>}</dd>
                <dt>Name</dt>
                <dd>{u.name ?? <span class="muted">—</span>}</dd>
                <dt>First seen</dt>
                <dd>{formatTime(u.first_seen)}</dd>
                <dt>Last seen</dt>
                <dd>
                  {lastSeen === undefined ? (
                    <span class="muted">…</span>
                  ) : lastSeen === null ? (
                    <span class="muted">— (no event within the events listing's window)</span>
                  ) : (
                    formatTime(lastSeen)
                  )}
                </dd>
              </dl>
            </section>
            <section aria-labelledby="user-privacy">
              <h2 id="user-privacy">Privacy requests</h2>
              {canErase ? (
                <>
                  <ExportPerson api={api} projectPath={projectPath} user={u} />
                  <DeletePerson api={api} projectPath={projectPath} user={u} label={userLabel(u)} />
                </>
              ) : (
                <ReadOnlyNote needed="admin" what="export or delete a person" />
              )}
            </section>
            <UserEvents api={api} projectPath={projectPath} ids={[u.user_id, ...u.ids]} onNewest={setLastSeen} />
          </>
        )}
      </AsyncView>
    </>
  );
}

/**
 * The person's recent events under every linked ID: the listing finds them from any one of them. An ID
 * linked before the text rule (docs/api.md, "Text from clients") may break it, and the listing refuses
 * such a filter (400): the first ID that keeps the rule is asked; with none, the page says why.
 */
function UserEvents({
  api,
  projectPath,
  ids,
  onNewest,
}: {
  api: PageProps['api'];
  projectPath: string;
  ids: string[];
  /** Told the newest listed event's timestamp (null: none listed) once the events arrive. */
  onNewest: (timestamp: string | null) => void;
}) {
  const listable = ids.filter((id) => textProblem('user_id', id) === undefined);
  const asked = listable[0];
  const unlisted = new Set(ids).size - new Set(listable).size;
  const events = useAsync(
    async () =>
      asked === undefined
        ? { events: [], people: {} }
        : api.get<{ events: StoredEvent[]; people: People }>(`/admin/v1${projectPath}/events?${new URLSearchParams({ user_id: asked, limit: '100' })}`),
    [api, projectPath, asked],
  );
  useEffect(() => {
    if (events.data) onNewest(events.data.events[0]?.timestamp ?? null);
  }, [events.data]);
  return (
    <section aria-labelledby="user-events">
      <h2 id="user-events">Recent events</h2>
      {asked !== undefined && unlisted > 0 && (
        <p class="notice">
          {unlisted === 1
            ? 'Events of one linked ID are not listed: it holds U+0000 (NUL) or a broken surrogate, which the events listing cannot filter by (it was linked before Tally refused such IDs).'
            : `Events of ${unlisted} linked IDs are not listed: they hold U+0000 (NUL) or a broken surrogate, which the events listing cannot filter by (they were linked before Tally refused such IDs).`}
        </p>
      )}
      {asked === undefined ? (
        <p class="notice">
          This person’s events are not listed: every ID of theirs holds U+0000 (NUL) or a broken surrogate, which the events listing cannot filter by (they were
          linked before Tally refused such IDs).
        </p>
      ) : (
        <AsyncView state={events}>{({ events: list, people }) => <EventList events={list} people={people} />}</AsyncView>
      )}
    </section>
  );
}

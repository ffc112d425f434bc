/**
 * Users: the users seen recently (the recent-users listing: last seen, events, linked IDs), the most
 * recent first, searched by any of their IDs; and one user (any ID, canonical or linked, also one
 * not seen recently): the canonical ID, every linked ID, the profile, first seen and their recent events.
 */
import { useState } from 'preact/hooks';
import { textProblem } from '../../../lambdas/domain/client-text';
import type { RecentUser, StoredEvent, User } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { EventList } from '../components/event-list';
import { Field } from '../components/field';
import { ListTable } from '../components/list-table';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';
import { pathOf } from '../router';

/** Events are listed per ID (the listing matches the canonical or the sent ID); at most this many IDs are asked. */
const MAX_IDS_LISTED = 10;
/** Users listed at once (the API allows up to 200). */
const USERS_LISTED = 50;

export function UsersPage({ api, params }: PageProps) {
  const projectPath = pathOf('projects', params.projectId!);
  const userId = params.userId;
  if (userId === undefined) return <RecentUsers api={api} projectPath={projectPath} />;
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${projectPath}/users`}>Users</a>
      </p>
      <h1>User</h1>
      {userId === '.' || userId === '..' ? (
        // URLs read these as path steps ("%2E" too), so GET .../users/{id} can never name them.
        <p role="alert" class="notice">
          The ID “{userId}” cannot be looked up: URLs read it as a path step. Filter <a href={`#${projectPath}/events`}>Events</a> by this user ID instead.
        </p>
      ) : (
        <UserDetails key={userId} api={api} projectPath={projectPath} userId={userId} />
      )}
    </>
  );
}

function RecentUsers({ api, projectPath }: { api: PageProps['api']; projectPath: string }) {
  const [search, setSearch] = useState('');
  const list = useAsync(() => {
    const q = new URLSearchParams({ limit: String(USERS_LISTED) });
    if (search) q.set('search', search);
    return api.get<{ users: RecentUser[] }>(`/admin/v1${projectPath}/users?${q}`);
  }, [api, projectPath, search]);
  const userHref = (id: string) => `#${projectPath}/users/${encodeURIComponent(id)}`;
  return (
    <>
      <h1>Users</h1>
      <form
        class="inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(String(new FormData(e.currentTarget).get('search') ?? '').trim());
        }}
      >
        <Field id="search-users" label="Search by ID" hint="Part of any ID: a signed-in user's ID or an anonymous ID.">
          <input name="search" type="search" autoComplete="off" />
        </Field>
        <button type="submit">Search</button>
      </form>
      <AsyncView state={list}>
        {({ users }) => (
          <>
            <p class="muted" role="status">
              {users.length === 0
                ? search
                  ? `No user seen recently has an ID containing “${search}”.`
                  : 'No users seen recently: users appear here with their first event.'
                : `${users.length === USERS_LISTED ? `The ${USERS_LISTED} users` : users.length === 1 ? 'The one user' : `The ${users.length} users`} seen most recently${search ? ` with an ID containing “${search}”` : ''}, the most recent first.`}
            </p>
            {search && users.length === 0 && (
              <p>
                <a href={userHref(search)}>Look up “{search}” as an exact ID</a> (also finds users with no recent events).
              </p>
            )}
            {users.length > 0 && (
              <ListTable columns={['User', 'Linked IDs', 'Events', 'Last seen']} action="Details" name="users-table">
                {users.map((u) => (
                  <tr key={u.user_id}>
                    <td class="mono" data-label="User">
                      <a href={userHref(u.user_id)}>{u.user_id}</a>
                    </td>
                    <td data-label="Linked IDs">
                      <ul class="plain mono">
                        {u.ids.map((id) => (
                          <li key={id}>{id}</li>
                        ))}
                      </ul>
                      {u.id_count > u.ids.length && <span class="muted">and {u.id_count - u.ids.length} more</span>}
                    </td>
                    <td class="num" data-label="Events">
                      {u.events.toLocaleString('en')}
                    </td>
                    <td data-label="Last seen">{formatTime(u.last_seen)}</td>
                    <td>
                      <a href={userHref(u.user_id)} aria-label={`Details of ${u.user_id}`}>
                        Details
                      </a>
                    </td>
                  </tr>
                ))}
              </ListTable>
            )}
          </>
        )}
      </AsyncView>
    </>
  );
}

function UserDetails({ api, projectPath, userId }: { api: PageProps['api']; projectPath: string; userId: string }) {
  const user = useAsync(() => api.get<User>(`/admin/v1${projectPath}/users/${encodeURIComponent(userId)}`), [api, projectPath, userId]);
  return (
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
            </dl>
          </section>
          <UserEvents api={api} projectPath={projectPath} ids={u.ids.length ? u.ids : [u.user_id]} />
        </>
      )}
    </AsyncView>
  );
}

function UserEvents({ api, projectPath, ids }: { api: PageProps['api']; projectPath: string; ids: string[] }) {
  // An ID linked before the text rule (docs/api.md, "Text from clients") may break it; the listing
  // refuses such a filter (400), so its events are not asked for, and the page says so.
  const listable = ids.filter((id) => textProblem('user_id', id) === undefined);
  const unlisted = ids.length - listable.length;
  const events = useAsync(async () => {
    const asked = listable.slice(0, MAX_IDS_LISTED);
    const lists = await Promise.all(
      asked.map((id) => api.get<{ events: StoredEvent[] }>(`/admin/v1${projectPath}/events?${new URLSearchParams({ user_id: id, limit: '100' })}`)),
    );
    const seen = new Set<string>();
    const merged: StoredEvent[] = [];
    for (const e of lists.flatMap((l) => l.events)) {
      const k = e.dedupe_key ?? e.event_id ?? JSON.stringify(e);
      if (!seen.has(k)) {
        seen.add(k);
        merged.push(e);
      }
    }
    return merged.sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, 100);
  }, [api, projectPath, ids.join('\n')]);
  return (
    <section aria-labelledby="user-events">
      <h2 id="user-events">Recent events</h2>
      {unlisted > 0 && (
        <p class="notice">
          {unlisted === 1
            ? 'Events of one linked ID are not listed: it holds U+0000 (NUL) or a broken surrogate, which the events listing cannot filter by (it was linked before Tally refused such IDs).'
            : `Events of ${unlisted} linked IDs are not listed: they hold U+0000 (NUL) or a broken surrogate, which the events listing cannot filter by (they were linked before Tally refused such IDs).`}
        </p>
      )}
      <AsyncView state={events}>{(list) => <EventList events={list} />}</AsyncView>
    </section>
  );
}

/**
 * Stored events, newest first, each expandable (a native <details>) to its full JSON, each named by
 * its person (the listing's `people`: email, else name, else the most recently linked ID; the ID as
 * sent when the listing names no one), with the canonical ID on hover. Every value comes from
 * clients, so all of it is rendered as text: Preact escapes text, and the JSON is a string inside a
 * <pre>, never HTML.
 */
import type { StoredEvent } from '../admin-types';
import { formatTime } from '../format-time';

/** A value as JSON text for a <pre> (text content: Preact escapes it). */
const asJson = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'undefined';

/** The listing's people, by canonical user_id. */
export type People = Record<string, { label: string }>;

export function EventList({ events, people = {}, userHref }: { events: StoredEvent[]; people?: People; userHref?: (userId: string) => string }) {
  if (events.length === 0) return <p class="muted">No events.</p>;
  return (
    <ol class="events">
      {events.map((e, i) => (
        <li key={e.dedupe_key ?? e.event_id ?? i}>
          <details>
            <summary>
              <span class="event-time">{formatTime(e.timestamp)}</span>
              <span class="event-name">{e.name}</span>
              <span class="event-user" title={e.user_id === null ? undefined : `Canonical ID: ${e.user_id}`}>
                {(e.user_id !== null && people[e.user_id]?.label) || e.sent_user_id || e.user_id}
              </span>
            </summary>
            <div class="event-body">
              {userHref && e.user_id !== null && (
                <p>
                  <a href={userHref(e.user_id)}>Open {(e.user_id !== null && people[e.user_id]?.label) || e.user_id}</a> (canonical ID {e.user_id})
                </p>
              )}
              <pre class="code" tabIndex={0} aria-label={`Event ${e.name} as JSON`}>
                {asJson(e)}
              </pre>
            </div>
          </details>
        </li>
      ))}
    </ol>
  );
}

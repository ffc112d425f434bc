/**
 * Stored events, newest first, each expandable (a native <details>) to its full JSON. Every value
 * comes from clients, so all of it is rendered as text: Preact escapes text, and the JSON is a
 * string inside a <pre>, never HTML.
 */
import type { StoredEvent } from '../admin-types';
import { formatTime } from '../format-time';

/** A value as JSON text for a <pre> (text content: Preact escapes it). */
const asJson = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'undefined';

export function EventList({ events, userHref }: { events: StoredEvent[]; userHref?: (userId: string) => string }) {
  if (events.length === 0) return <p class="muted">No events.</p>;
  return (
    <ol class="events">
      {events.map((e, i) => (
        <li key={e.dedupe_key ?? e.event_id ?? i}>
          <details>
            <summary>
              <span class="event-time">{formatTime(e.timestamp)}</span>
              <span class="event-name">{e.name}</span>
              <span class="event-user">{e.user_id}</span>
            </summary>
            <div class="event-body">
              {userHref && (
                <p>
                  <a href={userHref(e.user_id)}>Look up user {e.user_id}</a>
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

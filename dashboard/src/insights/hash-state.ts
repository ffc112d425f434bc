/**
 * An insight page's state in the URL hash, after the route: `#/projects/<id>/insights/<kind>?d=<the
 * definition as JSON>&q=<query ID>`. The definition makes the page shareable (opening the link runs
 * it); the query ID lets a page that was left while its query ran come back to it (the poll route).
 * Written with history.replaceState: no hashchange, no new history entry per keystroke.
 */
export interface InsightHash {
  definition?: unknown;
  queryId?: string;
}

function query(): URLSearchParams {
  const hash = location.hash.replace(/^#/, '');
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}

export function readInsightHash(): InsightHash {
  const q = query();
  const out: InsightHash = {};
  const d = q.get('d');
  if (d !== null) {
    try {
      out.definition = JSON.parse(d) as unknown;
    } catch {
      // A mangled link: the form starts empty.
    }
  }
  const id = q.get('q');
  if (id !== null && /^[0-9a-f]{32}$/.test(id)) out.queryId = id;
  return out;
}

/** The hash of the page at `path` (the route, without a query) with this state. */
export function insightHref(path: string, state: InsightHash): string {
  const q = new URLSearchParams();
  if (state.definition !== undefined) q.set('d', JSON.stringify(state.definition));
  if (state.queryId !== undefined) q.set('q', state.queryId);
  const text = q.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

export function writeInsightHash(path: string, state: InsightHash): void {
  const href = insightHref(path, state);
  if (location.hash !== href) history.replaceState(history.state, '', href);
}

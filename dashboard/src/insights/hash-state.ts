/**
 * An insight page's state in the URL hash, after the route: `#/projects/<id>/insights/<kind>?d=<the
 * definition as JSON>&q=<query ID>&s=<saved insight ID>`. The definition makes the page shareable
 * (opening the link runs it; a relative range, domain/insights/relative-range.ts, is resolved to the
 * days it covers today); the query ID lets a page that was left while its query ran come back to it
 * (the poll route); the saved insight ID says which saved insight the page shows (its name, update
 * and rename in place). A link whose definition cannot be read or breaks the API's rules gives
 * `problem`, what is wrong, so the page says it instead of showing an empty form.
 * Written with history.replaceState: no hashchange, no new history entry per keystroke.
 */
import { withResolvedRange } from '../../../lambdas/domain/insights/relative-range';
import { savedDefinitionProblem } from '../../../lambdas/domain/insights/saved-insight';
import { today } from '../today';

export interface InsightHash {
  definition?: unknown;
  queryId?: string;
  savedId?: string;
  /** What is wrong with the link's definition, in words for the page; undefined when it is fine. */
  problem?: string;
}

function hashParts(): { path: string; query: URLSearchParams } {
  const hash = location.hash.replace(/^#/, '');
  const at = hash.indexOf('?');
  return { path: at < 0 ? hash : hash.slice(0, at), query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The problem of a link's definition text, by the rules the API runs it with (savedDefinitionProblem). */
export function linkProblem(kind: string, text: string): { definition?: unknown; problem?: string } {
  let definition: unknown;
  try {
    definition = JSON.parse(text) as unknown;
  } catch {
    return { problem: 'its definition is not readable JSON (the link may have been cut short when it was copied): the form starts empty' };
  }
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    return { problem: 'its definition is not an object of fields: the form starts empty' };
  }
  const problem = savedDefinitionProblem(kind, definition);
  return problem === null ? { definition } : { definition, problem: `${problem.replace(/(^|; )definition(\.|: )/g, '$1')}; the form shows what could be read` };
}

export function readInsightHash(): InsightHash {
  const { path, query } = hashParts();
  const out: InsightHash = {};
  const d = query.get('d');
  if (d !== null) {
    const kind = path.split('/').at(-1) ?? '';
    const read = linkProblem(kind, d);
    if (read.definition !== undefined) out.definition = withResolvedRange(read.definition, today());
    if (read.problem !== undefined) out.problem = read.problem;
  }
  const id = query.get('q');
  if (id !== null && /^[0-9a-f]{32}$/.test(id)) out.queryId = id;
  const saved = query.get('s');
  if (saved !== null && UUID.test(saved)) out.savedId = saved;
  return out;
}

/** The hash of the page at `path` (the route, without a query) with this state. */
export function insightHref(path: string, state: InsightHash): string {
  const q = new URLSearchParams();
  if (state.definition !== undefined) q.set('d', JSON.stringify(state.definition));
  if (state.queryId !== undefined) q.set('q', state.queryId);
  if (state.savedId !== undefined) q.set('s', state.savedId);
  const text = q.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

/** Writes the page's state; the saved insight it shows stays unless `savedId` is given ("" for none). */
export function writeInsightHash(path: string, state: InsightHash): void {
  const savedId = state.savedId ?? readInsightHash().savedId;
  const href = insightHref(path, { ...state, savedId: savedId || undefined });
  if (location.hash !== href) history.replaceState(history.state, '', href);
}

/** Names (or, with undefined, forgets) the saved insight the current page shows, keeping the rest of its state. */
export function setSavedIdInHash(savedId: string | undefined): void {
  const { path, query } = hashParts();
  if (savedId === undefined) query.delete('s');
  else query.set('s', savedId);
  const text = query.toString();
  const href = `#${path}${text ? `?${text}` : ''}`;
  if (location.hash !== href) history.replaceState(history.state, '', href);
}

/**
 * The results job's base (issue 21; docs/decisions/incremental-results.md, "Flat state reads"): when a
 * run rolls the closed state days up into a new generation of the base, how generations are named,
 * what a commit says, and when a superseded generation may be deleted. Pure.
 *
 * A base covers the state days before its boundary (the day of the watermark it was built at); a
 * run reads the committed base plus the state days from the boundary to the watermark's day.
 */

/** What a base commit names (commit.json, written after the generation's rows). */
export interface BaseCommit {
  /** The generation holding the base's rows. */
  generation: string;
  /** The first state day NOT in the base (YYYY-MM-DD): the base holds the committed slices of the days before. */
  boundaryDt: string;
  /** The committed watermark the base was built at (its slices end by it). */
  watermark: string;
  /** When the commit was written (ISO 8601 UTC). */
  committedAt: string;
  /**
   * The set of metric sources (issue 22) the base's slices summarise (render.ts metricSourceSet; '[]'
   * in a commit written before metrics existed). A run for another set does not read the base
   * (baseFor): it lacks the rows of the sources added, and the state is rebuilt from raw.
   */
  metricSources: string;
}

/**
 * The committed base a run for the set of metric sources `metricSources` reads: the commit if the
 * base summarises that set, else none (the run starts again from the empty state's watermark, as it
 * does for the state's own commit, and its next roll-up builds a generation of its own set; the one
 * the commit named is then superseded and deleted).
 */
export function baseFor(commit: BaseCommit | undefined, metricSources: string): BaseCommit | undefined {
  return commit !== undefined && commit.metricSources === metricSources ? commit : undefined;
}

/**
 * How long a generation can still be read or written after a run last saw it: the longest a Lambda
 * function runs (900 s: https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html).
 * A run reads the commit, then the generation it names, within its own lifetime.
 */
export const GENERATION_GRACE_MS = 900_000;

const DAY_MS = 86_400_000;
const day = (iso: string) => iso.slice(0, 10);

/**
 * The state days a run at `watermark` rolls up, or undefined when no day closed since the base:
 * from the base's boundary (none yet: the empty state's first day) to the day before the
 * watermark's, which becomes the new boundary.
 */
export function baseDue(
  commit: Pick<BaseCommit, 'boundaryDt'> | undefined,
  watermark: string,
  stateFromDt: string,
): { closedFromDt: string; closedToDt: string; boundaryDt: string } | undefined {
  const boundaryDt = day(watermark);
  const closedFromDt = commit?.boundaryDt ?? stateFromDt;
  if (boundaryDt <= closedFromDt) return undefined;
  return { closedFromDt, closedToDt: day(new Date(Date.parse(`${boundaryDt}T00:00:00.000Z`) - DAY_MS).toISOString()), boundaryDt };
}

/** A new generation's name: its creation time (sortable, compact) and a unique suffix; [0-9A-Za-z-] only. */
export function newGeneration(now: string, unique: string): string {
  if (!/^[0-9a-z]+$/i.test(unique)) throw new RangeError(`generation suffix "${unique}" must be letters and digits`);
  return `${new Date(now).toISOString().replace(/[-:.]/g, '')}-${unique}`;
}

/** The creation time of a generation named by newGeneration (NaN for another name). */
function createdAt(generation: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-[0-9a-z]+$/i.exec(generation);
  return m ? Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z`) : NaN;
}

/**
 * The generations a run at `now` may delete: every one but the committed, once the commit is older
 * than the grace (no run still reads the generation it replaced), and created before the grace (no
 * run still writes it). A name not of newGeneration's form is left alone.
 */
export function supersededGenerations(generations: readonly string[], commit: BaseCommit, now: string, graceMs = GENERATION_GRACE_MS): string[] {
  const t = Date.parse(now);
  if (!(t - Date.parse(commit.committedAt) >= graceMs)) return [];
  return generations.filter((g) => g !== commit.generation && t - createdAt(g) >= graceMs);
}

/** A commit read back (commit.json): checked, or an error naming what is wrong. */
export function parseBaseCommit(text: string, where: string): BaseCommit {
  const parsed = JSON.parse(text) as Partial<Record<keyof BaseCommit, unknown>>;
  const { generation, boundaryDt, watermark, committedAt } = parsed;
  const metricSources = parsed.metricSources ?? '[]';
  if (
    typeof generation !== 'string' ||
    !/^[0-9A-Za-z-]+$/.test(generation) ||
    typeof boundaryDt !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}$/.test(boundaryDt) ||
    typeof watermark !== 'string' ||
    !Number.isFinite(Date.parse(watermark)) ||
    typeof committedAt !== 'string' ||
    !Number.isFinite(Date.parse(committedAt)) ||
    typeof metricSources !== 'string'
  ) {
    throw new Error(`${where} is not a base commit (generation, boundaryDt, watermark, committedAt, metricSources)`);
  }
  return { generation, boundaryDt, watermark, committedAt, metricSources };
}

/**
 * The watermark a run starts from: the state's committed one, but never before the base's (the base
 * holds every slice up to its watermark, so a state commit that was lost or deleted, while the base
 * survived, resumes after the base, and each new slice starts on or after its boundary day, where the
 * count reads it); the empty state's when there is neither.
 */
export function startWatermark(state: string | undefined, base: Pick<BaseCommit, 'watermark'> | undefined, empty: string): string {
  const known = [state, base?.watermark].filter((w): w is string => w !== undefined);
  return known.length === 0 ? empty : known.reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b));
}

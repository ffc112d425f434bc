/**
 * How the dashboard words a person's deletion and export (docs/api.md, "Deletions" and "Exports"):
 * each receipt line's store in plain words with the unit its count is in, in the order a deletion's
 * steps run (lambdas/domain/deletion.ts); the list the confirmation names before anything is sent;
 * what "Suppress future events" does today; an export's counts.
 */
import type { ExportView, ReceiptLine } from './admin-types';

export const RECEIPT_STORES: Record<ReceiptLine['store'], { name: string; unit: string; units: string }> = {
  identities: { name: 'Identity links and profile (email, name)', unit: 'item', units: 'items' },
  assignments: { name: 'Experiment assignments', unit: 'assignment', units: 'assignments' },
  landing_events: { name: 'Events of the newest hours (landing files)', unit: 'event', units: 'events' },
  curated_events: { name: 'Events, compacted (curated files)', unit: 'event', units: 'events' },
  landing_identities: { name: 'ID links of the newest hours (landing files)', unit: 'link', units: 'links' },
  curated_identities: { name: 'ID links, compacted (curated files)', unit: 'link', units: 'links' },
  results_state: { name: 'Experiment results (recomputed without the person)', unit: 'stored result', units: 'stored results' },
  insight_queries: { name: 'Cached insight results', unit: 'cached answer', units: 'cached answers' },
  exports: { name: 'Exports of the person (files and requests)', unit: 'file', units: 'files' },
};

/** What a deletion removes, as the confirmation names it. */
export const DELETED_STORES = [
  'their events, every copy (the newest hours and the compacted files)',
  'their identity links and profile (email, name)',
  'their experiment assignments',
  'experiment results: recomputed without them',
  'cached insight results that hold their rows',
  'their exports (the files and the requests)',
];

/** "1 event", "3 events". */
export const counted = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

export function removedText(line: ReceiptLine): string {
  const store = RECEIPT_STORES[line.store];
  return counted(line.removed, store.unit, store.units);
}

/** What an export holds, in words: "3 events, 2 identity links, 1 profile, 0 assignments". */
export function exportCounts(c: NonNullable<ExportView['counts']>): string {
  return [
    counted(c.events, 'event', 'events'),
    counted(c.identity_links, 'identity link', 'identity links'),
    counted(c.profiles, 'profile', 'profiles'),
    counted(c.assignments, 'assignment', 'assignments'),
  ].join(', ');
}

/**
 * What "Suppress future events" does (docs/privacy.md, "Suppression"): from the request on, ingestion
 * accepts and drops every event of the person's IDs; permanent.
 */
export const SUPPRESS_HINT =
  "From now on, events of this person's IDs are accepted and dropped: never stored, linked or shown. Permanent: it cannot be lifted. Without it, an ID that sends again becomes a new person.";

export const suppressText = (suppress: boolean) =>
  suppress
    ? "Suppressed: later events of the person's IDs are accepted and dropped (permanent)"
    : 'Not suppressed: an ID that sends again becomes a new person';

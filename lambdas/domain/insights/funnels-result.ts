/**
 * A funnels query's rows (adapters/sql/insight-funnels.sql) as the API's result (docs/api.md
 * "Insights"). Pure.
 *
 * Rows: breakdown_kind ('value', 'unknown' or 'other'; NULL on the totals' rows), breakdown_value (the
 * value for kind 'value', else NULL), breakdown_rank (0 totals, 1-10, 11 "unknown" beyond the top 10, 12 "other"),
 * step (1-based), users (who reached it), median_seconds (from the step before; NULL for step 1).
 * A step nobody reached has no row: it counts 0.
 */
import { breakdownLine, type BreakdownKind } from './breakdown-line';
import type { FunnelsDefinition } from './funnels-definition';
import { rowNumber } from './insight-number';

export interface FunnelStepResult {
  step: number;
  event: string;
  where: { property: string; equals: string } | null;
  /** Canonical users who reached the step in order within the window. */
  users: number;
  /** users / the first step's users (1 for the first step; null when nobody did the first step). */
  conversion_from_first: number | null;
  /** users / the previous step's users (1 for the first step; null when nobody reached the previous step). */
  conversion_from_previous: number | null;
  /** The previous step's users who did not reach this one (0 for the first step). */
  drop_off: number;
  /** The median time from the previous step, in seconds (null for the first step and when nobody reached it). */
  median_seconds_from_previous: number | null;
}

export interface FunnelGroup {
  /**
   * null: every user; else the breakdown value as sent for kind "value", and the labels "other" (the
   * values outside the top 10, grouped) and "unknown" (no value) for those kinds.
   */
  breakdown_value: string | null;
  /** What the group is: one value, the grouped rest or the missing value; null for every user. */
  breakdown_kind: BreakdownKind | null;
  steps: FunnelStepResult[];
}

export interface FunnelsResult {
  date_from: string;
  date_to: string;
  conversion_window_days: number;
  breakdown: { by: string; property: string | null } | null;
  /** The totals first, then the breakdown lines by users at the first step (top 10, "other" last). */
  groups: FunnelGroup[];
}

const ratio = (n: number, d: number) => (d > 0 ? n / d : null);

export function toFunnelsResult(definition: FunnelsDefinition, rows: Array<Record<string, unknown>>): FunnelsResult {
  type Group = { kind: BreakdownKind | null; value: string | null; rank: number; users: Map<number, number>; medians: Map<number, number | null> };
  const groups = new Map<string, Group>();
  const keyOf = (kind: BreakdownKind | null, value: string | null) => JSON.stringify([kind, value]);
  groups.set(keyOf(null, null), { kind: null, value: null, rank: 0, users: new Map(), medians: new Map() });
  for (const row of rows) {
    const step = rowNumber(row.step, 'step', 'Funnels');
    if (step === null || !Number.isInteger(step) || step < 1 || step > definition.steps.length) {
      throw new Error(`Funnels query returned a row of an unknown step: ${String(row.step)}`);
    }
    const { kind, value } = breakdownLine(row, 'Funnels');
    let group = groups.get(keyOf(kind, value));
    if (!group) {
      group = { kind, value, rank: rowNumber(row.breakdown_rank, 'breakdown_rank', 'Funnels') ?? 0, users: new Map(), medians: new Map() };
      groups.set(keyOf(kind, value), group);
    }
    group.users.set(step, rowNumber(row.users, 'users', 'Funnels') ?? 0);
    group.medians.set(step, rowNumber(row.median_seconds, 'median_seconds', 'Funnels'));
  }
  const ordered = [...groups.values()].sort((a, b) => a.rank - b.rank || String(a.value).localeCompare(String(b.value)));
  return {
    date_from: definition.date_from,
    date_to: definition.date_to,
    conversion_window_days: definition.conversion_window_days,
    breakdown: definition.breakdown ? { by: definition.breakdown, property: definition.breakdown_property ?? null } : null,
    groups: ordered.map((group) => {
      const first = group.users.get(1) ?? 0;
      return {
        breakdown_value: group.value,
        breakdown_kind: group.kind,
        steps: definition.steps.map((s, i) => {
          const users = group.users.get(i + 1) ?? 0;
          const previous = i === 0 ? users : (group.users.get(i) ?? 0);
          return {
            step: i + 1,
            event: s.event,
            where: s.where ?? null,
            users,
            conversion_from_first: i === 0 ? (first > 0 ? 1 : null) : ratio(users, first),
            conversion_from_previous: i === 0 ? (first > 0 ? 1 : null) : ratio(users, previous),
            drop_off: previous - users,
            median_seconds_from_previous: i === 0 ? null : (group.medians.get(i + 1) ?? null),
          };
        }),
      };
    }),
  };
}

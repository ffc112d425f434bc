/**
 * A dashboard (docs/api.md "Dashboards"): a named page of saved insights of its project, shown in the
 * order given, each re-run when the page opens; optionally one range for all of them (`range`: a
 * relative range, relative-range.ts, or "custom" with `date_from` and `date_to`), in place of each
 * insight's own. A tile naming an insight that was deleted later stays (the page shows it as deleted,
 * with a way to remove it); creating or changing a dashboard checks that every named insight exists.
 * Pure.
 */
import * as z from 'zod';
import { textRule } from '../client-text-schema';
import { checkRange, dayField } from './date-range';
import { RANGE_KINDS, type RangeKind } from './relative-range';

export const DASHBOARD_LIMITS = { nameLength: 200, perProject: 50, tiles: 20 } as const;

/** The range shown in place of each tile's own: relative, or fixed days. */
export interface DashboardRange {
  range: RangeKind;
  date_from?: string;
  date_to?: string;
}

export interface Dashboard {
  id: string;
  project_id: string;
  name: string;
  /** The saved insights shown, in order, by ID. */
  tiles: Array<{ saved_insight_id: string }>;
  /** null: each tile's own range. */
  range_override: DashboardRange | null;
  created_at: string;
  updated_at: string;
}

const name = textRule(
  z
    .string({ error: (iss) => (iss.input === undefined ? 'name is required: what the dashboard shows, e.g. "Weekly growth"' : 'name must be a string') })
    .trim()
    .min(1, 'name must not be empty')
    .max(DASHBOARD_LIMITS.nameLength, `name is longer than ${DASHBOARD_LIMITS.nameLength} characters`),
  'name',
);

const Tile = z
  .object(
    {
      saved_insight_id: z
        .string({ error: "saved_insight_id is required: the ID of one of the project's saved insights" })
        .min(1, 'saved_insight_id must not be empty'),
    },
    { error: 'each tile must be an object { saved_insight_id }' },
  )
  .strict();

const tiles = z
  .array(Tile, { error: 'tiles must be a list of { saved_insight_id }' })
  .max(DASHBOARD_LIMITS.tiles, `tiles may hold at most ${DASHBOARD_LIMITS.tiles} saved insights`)
  .refine((t) => new Set(t.map((x) => x.saved_insight_id)).size === t.length, 'tiles must name each saved insight once');

const RangeOverride = z
  .object(
    {
      range: z.enum(RANGE_KINDS, { error: `range_override.range must be one of ${RANGE_KINDS.map((r) => `"${r}"`).join(', ')}` }),
      date_from: dayField('date_from').optional(),
      date_to: dayField('date_to').optional(),
    },
    { error: 'range_override must be null or { range, date_from?, date_to? }' },
  )
  .strict()
  .superRefine((r, ctx) => {
    if (r.range !== 'custom') {
      for (const f of ['date_from', 'date_to'] as const) {
        if (r[f] !== undefined)
          ctx.addIssue({ code: 'custom', message: `${f} is only for "range": "custom" (a relative range gives its own days)`, path: [f] });
      }
      return;
    }
    for (const f of ['date_from', 'date_to'] as const) {
      if (r[f] === undefined) ctx.addIssue({ code: 'custom', message: `"range": "custom" needs ${f}: a UTC day, YYYY-MM-DD`, path: [f] });
    }
    if (r.date_from !== undefined && r.date_to !== undefined) checkRange({ date_from: r.date_from, date_to: r.date_to }, ctx);
  });

export const CreateDashboard = z
  .object(
    { name, tiles: tiles.default([]), range_override: RangeOverride.nullable().default(null) },
    { error: 'the body must be { name, tiles?, range_override? }' },
  )
  .strict();

export type CreateDashboard = z.infer<typeof CreateDashboard>;

export const UpdateDashboard = z
  .object(
    { name: name.optional(), tiles: tiles.optional(), range_override: RangeOverride.nullable().optional() },
    { error: 'the body must be { name?, tiles?, range_override? }' },
  )
  .strict();

export type UpdateDashboard = z.infer<typeof UpdateDashboard>;

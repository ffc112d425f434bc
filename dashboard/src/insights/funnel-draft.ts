/**
 * The funnels form's state (issue 25) and its two translations: to the request body the API takes
 * (lambdas/domain/insights/funnels-definition.ts) and back from a definition in a link or a saved
 * insight. A link written before steps had filters (steps with only `event`) opens as it was; anything
 * unexpected falls back to the default. Pure.
 */
import { isRelativeRange, resolveRange, type RangeKind } from '../../../lambdas/domain/insights/relative-range';

/** As the API allows (funnels-definition.ts MIN_FUNNEL_STEPS, MAX_FUNNEL_STEPS; not imported: it brings zod). */
export const MIN_STEPS = 2;
export const MAX_STEPS = 6;

export const FUNNEL_BREAKDOWNS = [
  ['', 'None'],
  ['platform', 'Platform'],
  ['country', 'Country'],
  ['app_version', 'App version'],
  ['property', 'Event property'],
] as const;

export type FunnelBreakdown = (typeof FUNNEL_BREAKDOWNS)[number][0];

export interface StepDraft {
  event: string;
  /** The "where property equals value" inputs are shown (and sent). */
  filtered: boolean;
  property: string;
  equals: string;
}

export interface FunnelDraft {
  steps: StepDraft[];
  range: RangeKind;
  date_from: string;
  date_to: string;
  /** As typed: the API says what is wrong with it. */
  conversion_window_days: string;
  breakdown: FunnelBreakdown;
  breakdown_property: string;
}

export interface FunnelStepDefinition {
  event: string;
  where?: { property: string; equals: string };
}

export interface FunnelDefinition {
  steps: FunnelStepDefinition[];
  date_from: string;
  date_to: string;
  range?: RangeKind;
  conversion_window_days: number;
  breakdown?: Exclude<FunnelBreakdown, ''>;
  breakdown_property?: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export const emptyStep = (): StepDraft => ({ event: '', filtered: false, property: '', equals: '' });

export function emptyFunnelDraft(now = Date.now()): FunnelDraft {
  return {
    steps: [emptyStep(), emptyStep()],
    // The last 7 UTC days, today included (as trends), kept relative.
    range: 'last_7_days',
    ...resolveRange('last_7_days', day(now)),
    conversion_window_days: '14',
    breakdown: '',
    breakdown_property: '',
  };
}

/**
 * The request body. Names are trimmed (as typed into a one-line input, surrounding spaces are a slip);
 * a filter's value is sent as typed, since it is compared with the event's value as text. A step whose
 * filter is shown sends it even when a part is empty, so the API says which part is missing.
 */
export function toFunnelDefinition(d: FunnelDraft): FunnelDefinition {
  return {
    steps: d.steps.map((s) => ({ event: s.event.trim(), ...(s.filtered ? { where: { property: s.property.trim(), equals: s.equals } } : {}) })),
    date_from: d.date_from,
    date_to: d.date_to,
    // Fixed dates send no range: the definition is as before ranges existed.
    ...(d.range !== 'custom' ? { range: d.range } : {}),
    conversion_window_days: d.conversion_window_days.trim() === '' ? NaN : Number(d.conversion_window_days),
    ...(d.breakdown ? { breakdown: d.breakdown } : {}),
    ...(d.breakdown === 'property' ? { breakdown_property: d.breakdown_property.trim() } : {}),
  };
}

const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
const record = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined);

function stepFrom(value: unknown): StepDraft {
  const s = record(value);
  const where = record(s?.where);
  return { event: str(s?.event, ''), filtered: where !== undefined, property: str(where?.property, ''), equals: str(where?.equals, '') };
}

/** A definition from a link or a saved insight, as the form shows it. */
export function fromFunnelDefinition(value: unknown, now = Date.now()): FunnelDraft {
  const d = emptyFunnelDraft(now);
  const v = record(value);
  if (v === undefined) return d;
  const steps = Array.isArray(v.steps) ? v.steps.slice(0, MAX_STEPS).map(stepFrom) : [];
  while (steps.length < MIN_STEPS) steps.push(emptyStep());
  const breakdown = FUNNEL_BREAKDOWNS.find(([b]) => b === v.breakdown)?.[0] ?? '';
  return {
    steps,
    range: isRelativeRange(v.range) ? v.range : 'custom',
    date_from: str(v.date_from, d.date_from),
    date_to: str(v.date_to, d.date_to),
    conversion_window_days:
      typeof v.conversion_window_days === 'number' && Number.isFinite(v.conversion_window_days) ? String(v.conversion_window_days) : d.conversion_window_days,
    breakdown,
    breakdown_property: str(v.breakdown_property, ''),
  };
}

/** A step as the answer names it: "purchase where plan = pro" (render as text: both come from events). */
export function stepName(step: { event: string; where?: { property: string; equals: string } | null }): string {
  return step.where ? `${step.event} where ${step.where.property} = ${step.where.equals}` : step.event;
}

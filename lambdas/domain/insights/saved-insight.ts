/**
 * A saved insight (issue 25, "Saved insights"): a name, the kind and its definition, per project.
 * The definition is checked with the kind's own schema (kinds.ts), so a saved insight always runs.
 * Pure.
 */
import * as z from 'zod';
import { textRule } from '../client-text-schema';
import { INSIGHT_KINDS, INSIGHT_KIND_NAMES, type InsightKind, type InsightKindName } from './kinds';

export const SAVED_INSIGHT_LIMITS = { nameLength: 200, perProject: 200 } as const;

export interface SavedInsight {
  id: string;
  project_id: string;
  name: string;
  kind: InsightKindName;
  /** The definition as its kind's schema gives it (defaults filled in). */
  definition: unknown;
  created_at: string;
  updated_at: string;
}

const name = textRule(
  z
    .string({ error: (iss) => (iss.input === undefined ? 'name is required: what the insight shows, e.g. "Signups by platform"' : 'name must be a string') })
    .trim()
    .min(1, 'name must not be empty')
    .max(SAVED_INSIGHT_LIMITS.nameLength, `name is longer than ${SAVED_INSIGHT_LIMITS.nameLength} characters`),
  'name',
);

/** The definition checked with the kind's schema; its issues are reported under definition.<field>. */
function checkDefinition(kind: InsightKindName, definition: unknown, ctx: z.RefinementCtx): unknown {
  const parsed = (INSIGHT_KINDS[kind] as InsightKind<unknown>).definition.safeParse(definition);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['definition', ...issue.path] });
  return z.NEVER;
}

/**
 * What keeps a stored definition from running under today's rules (one saved before a bound was set,
 * such as the date bounds), as "definition.<field>: <message>", or null when it runs. The rules are
 * the kind's own, as a run checks them.
 */
export function savedDefinitionProblem(kind: string, definition: unknown): string | null {
  const k = Object.hasOwn(INSIGHT_KINDS, kind) ? (INSIGHT_KINDS[kind as InsightKindName] as InsightKind<unknown>) : undefined;
  if (!k) return `kind: "${kind}" is not an insight kind any more`;
  const parsed = k.definition.safeParse(definition);
  if (parsed.success) return null;
  // A field the kind does not have is named (the schema's own message lists only the fields it has).
  const message = (issue: z.core.$ZodIssue) =>
    issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((f) => `"${f}"`).join(', ')}` : issue.message;
  return parsed.error.issues.map((issue) => `${['definition', ...issue.path].join('.')}: ${message(issue)}`).join('; ');
}

export const CreateSavedInsight = z
  .object(
    {
      name,
      kind: z.enum(INSIGHT_KIND_NAMES as [InsightKindName, ...InsightKindName[]], {
        error: `kind must be one of ${INSIGHT_KIND_NAMES.map((k) => `"${k}"`).join(', ')}`,
      }),
      definition: z.unknown(),
    },
    { error: 'the body must be { name, kind, definition }' },
  )
  .strict()
  .transform((body, ctx) => ({ ...body, definition: checkDefinition(body.kind, body.definition, ctx) }));

export type CreateSavedInsight = z.infer<typeof CreateSavedInsight>;

export const UpdateSavedInsight = z
  .object({ name: name.optional(), definition: z.unknown().optional() }, { error: 'the body must be { name?, definition? }' })
  .strict();

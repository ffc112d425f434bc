/**
 * The per-event rules of parseBatch (domain/event.ts) as a zod schema, for the OpenAPI document
 * (lambdas/openapi.ts) only: the ingestion functions validate with the hand-written checks of
 * domain/event.ts and do not bundle zod. test/unit/event-schema.test.ts checks that both agree,
 * messages included.
 */
import * as z from 'zod';
import { textRule } from './client-text-schema';
import { EVENT_STRING_FIELDS, type EventStringField } from './event';
import { checkProperties } from './event-properties';
import { LIMITS } from './limits';

const TEXT_RULE = 'Well-formed Unicode (no unpaired UTF-16 surrogate) without U+0000 (docs/api.md, "Text from clients").';

const field = (label: string) =>
  textRule(
    z
      .string({ error: `${label} must be a string` })
      .min(1, `${label} must not be empty (leave it out instead)`)
      .max(LIMITS.maxFieldLength, `${label} is longer than ${LIMITS.maxFieldLength} characters`),
    label,
  )
    .describe(TEXT_RULE)
    .optional();

export const SentEventSchema = z.object({
  name: textRule(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'name is required' : 'name must be a string') })
      .min(1, 'name must not be empty')
      .max(LIMITS.maxEventNameLength, `name is longer than ${LIMITS.maxEventNameLength} characters`),
    'name',
  ).describe(TEXT_RULE),
  timestamp: z.unknown().optional(),
  properties: z
    .record(z.string(), z.unknown(), { error: 'properties must be a JSON object' })
    .superRefine((properties, ctx) => {
      const { problem } = checkProperties(properties);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(
      'Keys at any depth follow the text rule of names; string values must be well-formed Unicode (U+0000 is kept); numbers must be finite (within ±1.7976931348623157e308).',
    )
    .optional(),
  ...(Object.fromEntries(EVENT_STRING_FIELDS.map((f) => [f, field(f)])) as Record<EventStringField, ReturnType<typeof field>>),
});

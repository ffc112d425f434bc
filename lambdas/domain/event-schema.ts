/**
 * The per-event rules of parseBatch (domain/event.ts) as a zod schema, for the OpenAPI document
 * (lambdas/openapi.ts) only: the ingestion functions validate with the hand-written checks of
 * domain/event.ts and do not bundle zod. test/unit/event-schema.test.ts checks that both agree,
 * messages included.
 */
import * as z from 'zod';
import { EVENT_STRING_FIELDS, type EventStringField } from './event';
import { LIMITS } from './limits';

const field = (label: string) =>
  z
    .string({ error: `${label} must be a string` })
    .min(1, `${label} must not be empty (leave it out instead)`)
    .max(LIMITS.maxFieldLength, `${label} is longer than ${LIMITS.maxFieldLength} characters`)
    .optional();

export const SentEventSchema = z.object({
  name: z
    .string({ error: (iss) => (iss.input === undefined ? 'name is required' : 'name must be a string') })
    .min(1, 'name must not be empty')
    .max(LIMITS.maxEventNameLength, `name is longer than ${LIMITS.maxEventNameLength} characters`),
  timestamp: z.unknown().optional(),
  properties: z.record(z.string(), z.unknown(), { error: 'properties must be a JSON object' }).optional(),
  ...(Object.fromEntries(EVENT_STRING_FIELDS.map((f) => [f, field(f)])) as Record<EventStringField, ReturnType<typeof field>>),
});

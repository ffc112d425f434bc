/**
 * The text rule (client-text.ts) as zod refinements, with the same messages, for the schemas that
 * validate the admin API and describe the ingestion body (event-schema.ts). A module of its own so
 * that domain/event.ts, which the ingestion functions bundle, never pulls in zod.
 */
import type * as z from 'zod';
import { filterValueProblem, freeTextProblem, textProblem } from './client-text';

const refineWith =
  (problem: (label: string, value: string) => string | undefined) =>
  <T extends z.ZodType<string>>(schema: T, label: string) =>
    schema.superRefine((value, ctx) => {
      const message = problem(label, value);
      if (message) ctx.addIssue({ code: 'custom', message });
    });

/** IDs, names and keys: well-formed Unicode without U+0000. */
export const textRule = refineWith(textProblem);
/** A value a query compares property values with: well-formed Unicode without U+0000, with its own message. */
export const filterValueRule = refineWith(filterValueProblem);
/** Free text (descriptions): well-formed Unicode. */
export const freeTextRule = refineWith(freeTextProblem);

import type * as z from 'zod';
import { ApiError } from './api-error';
import { parseJsonBody } from './body';
import type { HttpEvent } from './event';

/** Each zod issue as "<field>: <message>", so a 400 names the field to fix. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`).join('; ');
}

export function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(400, describeIssues(parsed.error));
  return parsed.data;
}

/** An admin request's JSON body checked against a schema. */
export async function jsonBody<T>(event: HttpEvent, schema: z.ZodType<T>): Promise<T> {
  let value: unknown;
  try {
    value = await parseJsonBody(event);
  } catch (err) {
    if (err instanceof ApiError && err.extra.message) throw new ApiError(err.status, `Invalid JSON body: ${err.extra.message}`);
    throw err;
  }
  return parseWith(schema, value);
}

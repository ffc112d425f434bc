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

const validatedFields = new WeakMap<object, string[]>();

/** The top-level field names of the body a request's handler validated (the audit log's "what changed"); none before. */
export function validatedFieldsOf(event: HttpEvent): string[] {
  return validatedFields.get(event) ?? [];
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
  const data = parseWith(schema, value);
  if (data && typeof data === 'object' && !Array.isArray(data)) validatedFields.set(event, Object.keys(data).sort());
  return data;
}

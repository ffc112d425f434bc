/**
 * The API's message for one form field. The API names the field either in `details[].field` or at the
 * start of its message ("variants: variants needs at least two entries; name: name must not be
 * empty"); either way the message is shown next to that field, in the API's own words.
 */
import { ApiError } from '../api';

export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const detail = err.forField(field);
  if (detail) return detail;
  const parts = err.message.split('; ');
  const mine = parts.filter((part) => part.startsWith(`${field}: `) || part.startsWith(`${field}.`));
  if (mine.length === 0) return undefined;
  return mine.map((part) => part.slice(part.indexOf(': ') + 2)).join('; ');
}

/** Whether every part of the error's message names one of the fields (else it is shown as a whole). */
export function coveredByFields(err: unknown, fields: string[]): boolean {
  if (!(err instanceof ApiError) || err.status !== 400) return false;
  return err.message.split('; ').every((part) => fields.some((f) => part.startsWith(`${f}: `) || part.startsWith(`${f}.`)));
}

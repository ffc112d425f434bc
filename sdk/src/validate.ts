/** Checks on app calls; a problem is reported (and the call dropped), never thrown. */
import { MAX_ID_LENGTH, MAX_NAME_LENGTH } from './defaults';

export const NOT_OBJECT = 'not a plain object';

/**
 * The server's text rule for names and IDs (docs/api.md, "Text from clients"), in short words: an
 * event or ID breaking it would be refused by the server. Where String.prototype.isWellFormed is
 * missing (browsers before 2023) only the server checks well-formedness: the SDK stays small.
 */
const textProblem = (label: string, value: string) =>
  (value as { isWellFormed?(): boolean }).isWellFormed?.() === false
    ? `${label} not well-formed Unicode`
    : value.includes('\0')
      ? `${label} holds U+0000`
      : undefined;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Why track(name, properties) cannot be sent, or undefined when it can. */
export function trackProblem(name: unknown, properties: unknown): string | undefined {
  if (typeof name !== 'string' || !name) return 'name must be a non-empty string';
  if (name.length > MAX_NAME_LENGTH) return `name over ${MAX_NAME_LENGTH} characters`;
  if (properties !== undefined && !isPlainObject(properties)) return NOT_OBJECT;
  return textProblem('name', name);
}

export function idProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || !id) return 'user ID must be a non-empty string';
  if (id.length > MAX_ID_LENGTH) return `user ID over ${MAX_ID_LENGTH} characters`;
  // Every later event would carry it and be refused.
  return textProblem('user ID', id);
}

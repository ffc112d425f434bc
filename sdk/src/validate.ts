/** Checks on app calls; a problem is reported (and the call dropped), never thrown. */
import { MAX_ID_LENGTH, MAX_NAME_LENGTH } from './defaults';

export const NOT_OBJECT = 'not a plain object';

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
  return undefined;
}

export function idProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || !id) return 'user ID must be a non-empty string';
  if (id.length > MAX_ID_LENGTH) return `user ID over ${MAX_ID_LENGTH} characters`;
  return undefined;
}

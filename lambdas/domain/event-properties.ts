/**
 * What an event's properties may hold, checked in one walk over every key and value at any depth
 * (it runs for every event, so it is the only walk; domain/event.ts uses its size bound too):
 *  - keys follow the text rule of IDs and names (client-text.ts textProblem): analysts and the
 *    results query look them up by JSON path, in SQL literals;
 *  - string values are well-formed Unicode (client-text.ts freeTextProblem); U+0000 is kept;
 *  - numbers are finite: JSON.parse reads 1e309 as Infinity, which JSON.stringify would store as null.
 * The first problem found, depth first in key order, is reported, naming its place:
 * `properties.cart.items[0].title`.
 */
import { freeTextProblem, isWellFormed, textProblem } from './client-text';

export interface PropertiesCheck {
  /** The first problem, or undefined. */
  problem: string | undefined;
  /**
   * An upper bound of the UTF-8 bytes of JSON.stringify(properties): a UTF-16 unit of a string is
   * at most 6 bytes (as \uXXXX), a number at most 25 characters. Meaningless when there is a problem.
   */
  jsonBytesBound: number;
}

type Step = string | number;

export function checkProperties(properties: Record<string, unknown>): PropertiesCheck {
  const bound = boundOf(properties);
  if (bound >= 0) return { problem: undefined, jsonBytesBound: bound };
  return { problem: firstProblem(properties, []), jsonBytesBound: 0 };
}

/**
 * The fast walk, for every event: the JSON size bound of a value JSON.parse returned, or -1 when a key
 * or value breaks a rule (firstProblem then walks again to name it). No path is kept.
 */
function boundOf(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? 2 + 6 * value.length : -1;
    case 'number':
      return Number.isFinite(value) ? 25 : -1;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      let bytes = 2;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const b = boundOf(value[i]);
          if (b < 0) return -1;
          bytes += b + 1;
        }
        return bytes;
      }
      const obj = value as Record<string, unknown>;
      for (const key in obj) {
        if (!isWellFormed(key) || key.includes('\u0000')) return -1;
        const b = boundOf(obj[key]);
        if (b < 0) return -1;
        bytes += 2 + 6 * key.length + 1 + b + 1;
      }
      return bytes;
    }
    default:
      return 0;
  }
}

/** The slow walk, only for properties that break a rule: the first problem, depth first in key order, naming its place. */
function firstProblem(value: unknown, path: Step[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return freeTextProblem(place(path), value);
    case 'number':
      return Number.isFinite(value) ? undefined : `${place(path)} is a number too large to store: JSON numbers must be within ±1.7976931348623157e308`;
    case 'object': {
      if (value === null) return undefined;
      const entries: Array<[Step, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
      for (const [step, child] of entries) {
        if (typeof step === 'string') {
          const keyProblem = textProblem(`a key in ${place(path)}`, step);
          if (keyProblem) return keyProblem;
        }
        const problem = firstProblem(child, [...path, step]);
        if (problem) return problem;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** properties.a.b[2]: keys (long ones cut, never inside a surrogate pair) and array indexes from the top. */
function place(path: Step[]): string {
  let out = 'properties';
  for (const step of path) out += typeof step === 'number' ? `[${step}]` : `.${cut(step)}`;
  return out;
}

function cut(key: string): string {
  if (key.length <= 40) return key;
  const end = /[\uD800-\uDBFF]/.test(key[39]!) ? 39 : 40;
  return `${key.slice(0, end)}…`;
}

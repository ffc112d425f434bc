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

/** Thrown inside the walk to stop at the first problem; never leaves this module. */
class Problem {
  constructor(readonly message: string) {}
}

export function checkProperties(properties: Record<string, unknown>): PropertiesCheck {
  const path: Step[] = [];
  try {
    return { problem: undefined, jsonBytesBound: walk(properties, path) };
  } catch (err) {
    if (err instanceof Problem) return { problem: err.message, jsonBytesBound: 0 };
    throw err;
  }
}

/** The JSON size bound of a value JSON.parse returned, throwing a Problem at the first value or key that breaks a rule. */
function walk(value: unknown, path: Step[]): number {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) throw new Problem(freeTextProblem(place(path), value)!);
      return 2 + 6 * value.length;
    case 'number':
      if (!Number.isFinite(value)) throw new Problem(`${place(path)} is a number too large to store: JSON numbers must be within ±1.7976931348623157e308`);
      return 25;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      let bytes = 2;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          bytes += walk(value[i], path) + 1;
          path.pop();
        }
        return bytes;
      }
      const obj = value as Record<string, unknown>;
      for (const key in obj) {
        if (!isWellFormed(key) || key.includes('\u0000')) throw new Problem(textProblem(`a key in ${place(path)}`, key)!);
        path.push(key);
        bytes += 2 + 6 * key.length + 1 + walk(obj[key], path) + 1;
        path.pop();
      }
      return bytes;
    }
    default:
      return 0;
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

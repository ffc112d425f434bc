/**
 * The body scan (lambdas/domain/json-shape.ts) gives the depth, value count and distinct keys of the
 * parsed value, exactly, however the bytes are split into chunks, and refuses as soon as a limit is passed.
 */
import { describe, expect, it } from 'vitest';
import { JsonShapeScan } from '../../lambdas/domain/json-shape';
import { prng } from '../../bin/prng';

/** Array elements plus object members, and the nesting depth, of a parsed value: what the scan must find. */
function countValues(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Object.values(v);
  return children.length + children.reduce((n: number, c) => n + countValues(c), 0);
}
function keysOf(v: unknown, into = new Set<string>()): Set<string> {
  if (typeof v === 'object' && v !== null) {
    if (!Array.isArray(v)) for (const k of Object.keys(v)) into.add(k);
    for (const c of Object.values(v)) keysOf(c, into);
  }
  return into;
}
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depthOf));
}

/** Feeds the bytes in chunks of random sizes (1 to maxChunk bytes); the first refusal, and the chunk count fed. */
function scanInChunks(bytes: Uint8Array, scan: JsonShapeScan, random: () => number, maxChunk: number) {
  for (let at = 0, fed = 1; at < bytes.length; fed++) {
    const next = at + 1 + Math.floor(random() * maxChunk);
    const refusal = scan.write(bytes.subarray(at, next));
    if (refusal) return { refusal, end: Math.min(next, bytes.length) };
    at = next;
  }
  return { refusal: undefined, end: bytes.length };
}

/** Strings that test the scan's string handling: escaped quotes and backslashes, non-ASCII, JSON-looking text. */
const TRICKY_STRINGS = ['', 'a"b', '\\', '\\"', '"\\\\"', '[{,:}]', 'é€😀', '\\u0022', '\u0000\n\t', 'x'.repeat(300), 'k', 'é'];

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 8 ? 4 : 7));
  if (pick === 0) return Math.floor(random() * 2000) - 1000 + (random() < 0.3 ? 0.5 : 0);
  if (pick === 1) return TRICKY_STRINGS[Math.floor(random() * TRICKY_STRINGS.length)];
  if (pick === 2) return [true, false, null][Math.floor(random() * 3)];
  if (pick === 3) return random() < 0.5 ? [] : {};
  if (pick === 4) return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, depth + 1));
  const entries = Array.from({ length: Math.floor(random() * 5) }, (_, i) => [
    `${TRICKY_STRINGS[i % TRICKY_STRINGS.length]}${i}`,
    randomValue(random, depth + 1),
  ]);
  return Object.fromEntries(entries);
}

const scan = (maxDepth: number, maxValues: number, maxKeys: number) => new JsonShapeScan({ maxDepth, maxValues, maxKeys });

describe('JsonShapeScan', () => {
  it('finds the exact depth, value count and distinct keys of any JSON, split anywhere, with or without whitespace', () => {
    const random = prng(19);
    for (let round = 0; round < 3000; round++) {
      const value = randomValue(random, 0);
      const text = JSON.stringify(value, null, round % 3 === 0 ? 2 : undefined);
      const bytes = Buffer.from(text);
      const values = countValues(value);
      const depth = depthOf(value);
      const keys = keysOf(value).size;
      // At the limits: nothing refused.
      expect(scanInChunks(bytes, scan(depth, values, keys), random, 7).refusal, text).toBeUndefined();
      // One below any: refused, by that limit.
      if (depth > 0) expect(scanInChunks(bytes, scan(depth - 1, Infinity, Infinity), random, 7).refusal, text).toBe('depth');
      if (values > 0) expect(scanInChunks(bytes, scan(Infinity, values - 1, Infinity), random, 7).refusal, text).toBe('values');
      if (keys > 0) expect(scanInChunks(bytes, scan(Infinity, Infinity, keys - 1), random, 7).refusal, text).toBe('keys');
    }
  });

  it('counts array elements plus object members, and distinct keys as written', () => {
    /** The least limit the text passes. */
    const least = (text: string, limits: (limit: number) => JsonShapeScan) => {
      for (let limit = 0; ; limit++) if (!limits(limit).write(Buffer.from(text))) return limit;
    };
    const values = (text: string) => least(text, (limit) => scan(Infinity, limit, Infinity));
    const keys = (text: string) => least(text, (limit) => scan(Infinity, Infinity, limit));
    expect(values('{"events":[{"name":"a"},{"name":"b"}]}')).toBe(5);
    expect(keys('{"events":[{"name":"a"},{"name":"b"}]}')).toBe(2);
    expect(values('[]')).toBe(0);
    expect(values('[[],{},"",0]')).toBe(4);
    expect(values('{"a":{"b":{"c":null}}}')).toBe(3);
    expect(keys('{"a":{"b":{"c":null}}}')).toBe(3);
    expect(values('"a string, with [brackets] and {braces}"')).toBe(0);
    // Values that look like keys are not keys; the same key in several objects counts once.
    expect(keys('{"a":"b","c":["d",{"a":"e"}],"f":{"b":1}}')).toBe(4);
    // As written: an escaped spelling of a key is another key.
    expect(keys('{"a":1,"\\u0061":2}')).toBe(2);
  });

  it('refuses deep nesting at the first byte past the limit, without reading further', () => {
    const bomb = Buffer.from('['.repeat(1_000_000) + ']'.repeat(1_000_000));
    const { refusal, end } = scanInChunks(bomb, scan(32, 100_000, 10_000), () => 0, 1);
    expect(refusal).toBe('depth');
    expect(end).toBe(33);
  });

  it('an escape at the end of a chunk applies to the first byte of the next', () => {
    // The string holds \" then a bracket: split right after the backslash, the quote must not end it.
    const text = Buffer.from('["a\\"[[[[", 1]');
    const at = text.indexOf('\\') + 1;
    const few = scan(1, 1, 0);
    expect(few.write(text.subarray(0, at))).toBeUndefined();
    expect(few.write(text.subarray(at))).toBe('values');
    const deep = scan(1, 10, 0);
    deep.write(text.subarray(0, at));
    expect(deep.write(text.subarray(at))).toBeUndefined();
  });
});

/**
 * The text rule (domain/client-text.ts) and the properties walk (domain/event-properties.ts), and the
 * ways two different client strings would become one key without the rule.
 */
import { describe, expect, it } from 'vitest';
import { bucketOf } from '../../lambdas/domain/bucketing';
import { freeTextProblem, HAS_NUL, hasLoneSurrogate, isWellFormed, NOT_WELL_FORMED, textProblem } from '../../lambdas/domain/client-text';
import { dedupeKey } from '../../lambdas/domain/dedupe';
import { checkProperties } from '../../lambdas/domain/event-properties';
import { utf8Bytes } from '../../lambdas/domain/id-key-budget';
import { prng } from '../../bin/prng';

/** Pairs of IDs that differ only in a lone surrogate, as a truncating SDK produces them. */
const LOOK_ALIKES: Array<[string, string]> = [
  ['z1\ud800', 'z1\udc00'],
  ['x\ud800R', 'x\udbffR'],
  ['\udfff', '\ud83d'],
];

describe('the text rule', () => {
  it('refuses unpaired surrogates anywhere and NUL in IDs, naming the field', () => {
    for (const bad of ['\ud800', 'a\udc00', 'a\ud800b', '\udbff\udbff', 'cut \ud83d', '\ude00 half']) {
      expect(textProblem('user_id', bad)).toBe(`user_id ${NOT_WELL_FORMED}`);
      expect(freeTextProblem('properties.title', bad)).toBe(`properties.title ${NOT_WELL_FORMED}`);
    }
    for (const bad of ['\u0000', 'nul\u0000user', 'end\u0000']) {
      expect(textProblem('user_id', bad)).toBe(`user_id ${HAS_NUL}`);
      expect(freeTextProblem('properties.note', bad)).toBeUndefined();
    }
  });

  it('accepts whole surrogate pairs, every other control character and non-characters', () => {
    for (const ok of ['', 'plain', 'z1\ud83d\ude00', '\ud800\udc00', 'tab\there\nline\r\u0001\u001f\u007f', '\ufffe\uffff', '\ufffd', 'é̀ Ω 中文']) {
      expect(textProblem('user_id', ok)).toBeUndefined();
    }
  });

  it('uses the native isWellFormed, which agrees with the fallback on random strings', () => {
    expect(isWellFormed.toString()).toContain('isWellFormed()');
    const random = prng(19);
    const units = [0x61, 0x0, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0xfffd, 0x10];
    for (let i = 0; i < 5000; i++) {
      const s = String.fromCharCode(...Array.from({ length: Math.floor(random() * 6) }, () => units[Math.floor(random() * units.length)]!));
      expect(isWellFormed(s), JSON.stringify(s)).toBe(!hasLoneSurrogate(s));
    }
  });
});

describe('ways two different client strings become one key, each closed by the rule', () => {
  it('UTF-8 (DynamoDB keys, dynalite, the key budget, the raw files) turns every lone surrogate into U+FFFD', () => {
    for (const [a, b] of LOOK_ALIKES) {
      expect(Buffer.from(a, 'utf8').equals(Buffer.from(b, 'utf8'))).toBe(true);
      expect(utf8Bytes(a)).toBe(utf8Bytes(b));
      expect([textProblem('id', a), textProblem('id', b)]).toEqual([`id ${NOT_WELL_FORMED}`, `id ${NOT_WELL_FORMED}`]);
    }
  });

  it('TextEncoder (bucketing) does the same: look-alike IDs would share a bucket, so the server never buckets them', () => {
    const experiment = '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';
    for (const [a, b] of LOOK_ALIKES) expect(bucketOf(experiment, a)).toBe(bucketOf(experiment, b));
  });

  it('the deduplication key alone never collapsed them: JSON.stringify escapes a lone surrogate before hashing', () => {
    for (const [a, b] of LOOK_ALIKES) {
      expect(dedupeKey(a, null, 0)).not.toBe(dedupeKey(b, null, 0));
      expect(dedupeKey('e', a, 0)).not.toBe(dedupeKey('e', b, 0));
    }
  });
});

describe('checkProperties', () => {
  const problem = (properties: Record<string, unknown>) => checkProperties(properties).problem;

  it('names the first bad key or value by its place, depth first', () => {
    expect(problem({ a: 1, b: [true, null, { 'c\u0000': 1 }] })).toBe(`a key in properties.b[2] ${HAS_NUL}`);
    expect(problem({ 'k\udc00': 'v' })).toBe(`a key in properties ${NOT_WELL_FORMED}`);
    expect(problem({ cart: { items: [{ title: 'cut \ud83d' }] } })).toBe(`properties.cart.items[0].title ${NOT_WELL_FORMED}`);
    expect(problem({ first: 'x\ud800', second: 'y\ud800' })).toBe(`properties.first ${NOT_WELL_FORMED}`);
    expect(problem({ price: Infinity })).toBe('properties.price is a number too large to store: JSON numbers must be within ±1.7976931348623157e308');
    expect(problem({ deep: [[-Infinity]] })).toMatch(/^properties\.deep\[0\]\[0\] is a number too large/);
  });

  it('cuts a long key in the place it names, never inside a surrogate pair', () => {
    const long = `${'k'.repeat(39)}\ud83d\ude00${'k'.repeat(20)}`;
    const named = problem({ [long]: 'x\ud800' })!;
    expect(named).toBe(`properties.${'k'.repeat(39)}… ${NOT_WELL_FORMED}`);
    expect(isWellFormed(named)).toBe(true);
  });

  it('accepts NUL in values, finite numbers and well-formed text, with a bound at least the JSON size', () => {
    const random = prng(7);
    const leaf = (): unknown =>
      [() => 'a\u0000b', () => '\ud83d\ude00é', () => random() * 1e308, () => -0, () => true, () => null, () => '\u2028"\\'][Math.floor(random() * 7)]!();
    const value = (depth: number): unknown => {
      if (depth > 3 || random() < 0.4) return leaf();
      if (random() < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}\u00e9\ud83d\ude00`, value(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const properties = { p: value(0), q: value(0) };
      const checked = checkProperties(properties);
      expect(checked.problem).toBeUndefined();
      expect(checked.jsonBytesBound).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(properties)));
    }
  });
});

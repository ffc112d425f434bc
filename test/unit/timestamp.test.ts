import { describe, expect, it } from 'vitest';
import { effectiveTimestamp, parseTimestamp } from '../../lambdas/domain/timestamp';

const ms = (v: unknown) => {
  const r = parseTimestamp(v);
  if (!r.ok) throw new Error(r.error);
  return r.ms;
};

describe('parseTimestamp', () => {
  it('reads the four spellings of 2026-01-01T00:00:00Z as one instant', () => {
    const instant = Date.UTC(2026, 0, 1);
    expect(ms('2026-01-01T00:00:00Z')).toBe(instant);
    expect(ms('2026-01-01T00:00:00.000+00:00')).toBe(instant);
    expect(ms(1767225600)).toBe(instant);
    expect(ms(1767225600000)).toBe(instant);
  });

  it('applies offsets, fractions and the no-zone-means-UTC rule', () => {
    expect(ms('2026-01-01T01:30:00+01:30')).toBe(Date.UTC(2026, 0, 1));
    expect(ms('2025-12-31T19:00:00-0500')).toBe(Date.UTC(2026, 0, 1));
    expect(ms('2026-01-01T00:00:00.123456Z')).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 123));
    expect(ms('2026-01-01T00:00:00')).toBe(Date.UTC(2026, 0, 1));
    expect(ms('2026-01-01')).toBe(Date.UTC(2026, 0, 1));
    expect(ms(1767225600.5)).toBe(Date.UTC(2026, 0, 1) + 500);
  });

  it('accepts offsets up to ±23:59 and refuses larger ones instead of shifting the instant by days', () => {
    expect(ms('2026-01-01T23:59:00+23:59')).toBe(Date.UTC(2026, 0, 1));
    expect(ms('2025-12-31T00:01:00-23:59')).toBe(Date.UTC(2026, 0, 1));
    expect(ms('2026-01-01T00:00:00-00:00')).toBe(Date.UTC(2026, 0, 1));
    for (const bad of ['2026-01-01T00:00:00+99:99', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00-0060', '2026-01-01T00:00:00+25']) {
      expect(parseTimestamp(bad)).toEqual({ ok: false, error: `timestamp "${bad}" has a time-zone offset out of range (from -23:59 to +23:59)` });
    }
  });

  it('rejects impossible dates, other formats and wrong types with a readable error', () => {
    for (const bad of ['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', 'yesterday', '1767225600', '', true, {}, -1, Number.NaN]) {
      const r = parseTimestamp(bad);
      expect(r.ok, String(bad)).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/timestamp/);
    }
  });
});

describe('effectiveTimestamp', () => {
  const now = Date.UTC(2026, 5, 1);
  const h = 3_600_000;
  it('defaults to arrival time and clamps more than 48 h ahead to it', () => {
    expect(effectiveTimestamp(undefined, now, 48 * h)).toBe(now);
    expect(effectiveTimestamp(now + 48 * h, now, 48 * h)).toBe(now + 48 * h);
    expect(effectiveTimestamp(now + 48 * h + 1, now, 48 * h)).toBe(now);
    expect(effectiveTimestamp(now - 1000 * h, now, 48 * h)).toBe(now - 1000 * h);
  });
});

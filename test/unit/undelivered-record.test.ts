/** What a line of an errors/ object gives a re-send: the rows, or why none can be sent (lambdas/domain/undelivered-record.ts). */
import { describe, expect, it } from 'vitest';
import { errorRecordTexts, redriveLine, undeliveredRecord } from '../../lambdas/domain/undelivered-record';

const NOW = '2026-11-28T10:00:00.000Z';
const event = {
  project_id: 'p',
  dedupe_key: 'k',
  name: 'buy',
  timestamp: '2026-11-01T00:00:00.000Z',
  received_at: '2026-11-01T00:00:01.000Z',
  properties: { q: 'ü "x"' },
};
const identity = { project_id: 'p', id: 'a', canonical_id: 'b', version: 2, timestamp: '2026-11-01T00:00:00.000Z', reason: 'link' };
const line = (raw: string) => JSON.stringify(undeliveredRecord(raw, 'DynamicPartitioning.MetadataExtractionFailed', 'm', 0));

describe('redriveLine', () => {
  it('gives an event back with its dedupe key and every field unchanged but received_at, set to the re-send time', () => {
    expect(redriveLine(line(JSON.stringify(event)), 'events', NOW)).toEqual({ rows: [{ ...event, received_at: NOW }] });
  });

  it('gives an identity record back unchanged', () => {
    expect(redriveLine(line(JSON.stringify(identity)), 'identities', NOW)).toEqual({ rows: [identity] });
  });

  it('gives every row of a record that held several lines (one that could not be de-aggregated)', () => {
    const raw = [event, { ...event, dedupe_key: 'k2' }].map((e) => JSON.stringify(e) + '\n').join('');
    const out = redriveLine(line(raw), 'events', NOW);
    expect('rows' in out && out.rows.map((r) => r.dedupe_key)).toEqual(['k', 'k2']);
  });

  it('says why a line cannot be re-sent, by kind', () => {
    const kind = (l: string, stream: 'events' | 'identities' = 'events') => {
      const out = redriveLine(l, stream, NOW);
      return 'failure' in out ? `${out.failure.kind}: ${out.failure.detail}` : 'rows';
    };
    expect(kind('garbage')).toBe('not an error record: the line is not JSON');
    expect(kind('{"errorCode":"x"}')).toBe('not an error record: no rawData field');
    expect(kind('{"rawData":"***"}')).toBe('rawData is not base64 text: rawData is not base64');
    expect(kind(JSON.stringify({ rawData: Buffer.from([0xff, 0xfe]).toString('base64') }))).toBe(
      'rawData is not base64 text: rawData does not decode to UTF-8 text',
    );
    expect(kind(line('{"project_id":'))).toBe('not a JSON object: rawData holds text that is not JSON');
    expect(kind(line('[1,2]'))).toBe('not a JSON object: rawData holds JSON that is not an object');
    expect(kind(line(''))).toBe('not a JSON object: rawData is empty');
    expect(kind(line(JSON.stringify({ ...event, project_id: '' })))).toBe('missing partition or dedupe key: no project_id (a non-empty string each)');
    expect(kind(line(JSON.stringify({ name: 'x', timestamp: 5 })))).toBe(
      'missing partition or dedupe key: no project_id, timestamp, received_at, dedupe_key (a non-empty string each)',
    );
    // An event's fields are not an identity record's: sent to the wrong stream's prefix, it is left.
    expect(kind(line(JSON.stringify(event)), 'identities')).toBe('missing partition or dedupe key: no id, canonical_id (a non-empty string each)');
  });
});

describe('errorRecordTexts', () => {
  it('reads the records of an object one per line, or back to back without a separator, braces and quotes inside strings included', () => {
    const a = JSON.stringify({ errorMessage: 'a } { "b', rawData: 'e30=' });
    const b = JSON.stringify({ errorMessage: 'x\\', rawData: 'e30=' });
    expect(errorRecordTexts(`${a}\n${b}\n`)).toEqual([a, b]);
    expect(errorRecordTexts(`${a}${b}`)).toEqual([a, b]);
    expect(errorRecordTexts(`${a}\r\n\n  ${b}`)).toEqual([a, b]);
  });

  it('gives text outside any object as a line of its own', () => {
    const a = JSON.stringify({ rawData: 'e30=' });
    expect(errorRecordTexts(`garbage here\n${a}\n[1]\n`)).toEqual(['garbage here', a, '[1]']);
  });
});

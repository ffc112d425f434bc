/**
 * A person's export: the file's format (domain/person-export.ts), the texts reading the person's rows
 * (adapters/sql/person-export.ts) run by DuckDB and parsed with Trino's grammar (the same text
 * Athena would run), and the S3 files with their presigned links (adapters/s3-export-files.ts).
 */
import { DeleteObjectsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ExportFiles } from '../../lambdas/adapters/s3-export-files';
import { renderPersonExport } from '../../lambdas/adapters/sql/person-export';
import { exportFile, exportNamesAny } from '../../lambdas/domain/person-export';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { trinoSyntaxErrors } from '../helpers/trino-grammar';

const person = { ids: ['ann', 'ann-phone'], through: '2026-04-15T11:40:00.000Z' };

describe('the export file', () => {
  it('is one JSON object per line, each with its type first, properties as sent, and counts of each type', () => {
    const { body, counts } = exportFile({
      events: [{ event_id: 'e1', name: 'view', properties: '{"plan":"pro"}' }],
      identityLinks: [{ id: 'ann-phone', canonical_id: 'ann' }],
      profiles: [{ id: 'ann', email: 'ann@example.com' }],
      assignments: [{ user_id: 'ann', experiment_id: 'x', variant: 'b' }],
    });
    expect(body.split('\n')).toEqual([
      '{"type":"event","event_id":"e1","name":"view","properties":{"plan":"pro"}}',
      '{"type":"identity_link","id":"ann-phone","canonical_id":"ann"}',
      '{"type":"profile","id":"ann","email":"ann@example.com"}',
      '{"type":"assignment","user_id":"ann","experiment_id":"x","variant":"b"}',
      '',
    ]);
    expect(counts).toEqual({ events: 1, identity_links: 1, profiles: 1, assignments: 1 });
    expect(exportFile({ events: [], identityLinks: [], profiles: [], assignments: [] })).toEqual({
      body: '',
      counts: { events: 0, identity_links: 0, profiles: 0, assignments: 0 },
    });
  });

  it('belongs to a person named by its user ID or any ID found when it ran', () => {
    const e = { id: 'x', project_id: 'p', user_id: 'ann-laptop', state: 'done' as const, requested_at: '', requested_by: '', ids: ['ann', 'ann-laptop'] };
    expect(exportNamesAny(e, new Set(['ann']))).toBe(true);
    expect(exportNamesAny({ ...e, ids: undefined }, new Set(['ann-laptop']))).toBe(true);
    expect(exportNamesAny(e, new Set(['bob']))).toBe(false);
  });
});

describe("the texts reading a person's rows", () => {
  let duck: TestDuckDb;
  beforeAll(async () => (duck = await testDuckDb()));
  afterAll(() => duck.close());

  // The readers' views' columns (events: the stored fields; identities: the links), a few rows each.
  const EVENTS = `CREATE OR REPLACE VIEW events AS SELECT * FROM (VALUES
    ('k1', 'e1', 'view', 'ann', 'ann-phone', NULL, '2026-04-09T10:00:00.000Z', '2026-04-09T10:00:01.000Z', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'p', '2026-04-09'),
    ('k2', 'e2', 'view', 'ann', 'ann', NULL, '2026-04-10T10:00:00.000Z', '2026-04-10T10:00:01.000Z', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'p', '2026-04-10'),
    ('k3', 'e3', 'view', 'ann', 'ann', NULL, '2026-04-15T11:50:00.000Z', '2026-04-15T11:50:01.000Z', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'p', '2026-04-15'),
    ('k4', 'e4', 'view', 'bob', 'bob', NULL, '2026-04-10T11:00:00.000Z', '2026-04-10T11:00:01.000Z', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'p', '2026-04-10'),
    ('k5', 'e5', 'view', 'ann', 'ann', NULL, '2026-04-10T12:00:00.000Z', '2026-04-10T12:00:01.000Z', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'other', '2026-04-10')
  ) t(dedupe_key, event_id, name, user_id, sent_user_id, session_id, "timestamp", received_at, properties, platform, app_version, app_build_number,
      os_version, environment, device_manufacturer, locale, timezone, country, region, city, sdk, sdk_version, source, project_id, dt);`;
  const IDENTITIES = `CREATE OR REPLACE VIEW identities AS SELECT * FROM (VALUES
    ('ann-phone', 'ann', '1', '2026-04-09T10:01:00.000Z', 'identify', 'p', '2026-04-09'),
    ('bob-anon', 'bob', '1', '2026-04-09T10:01:00.000Z', 'identify', 'p', '2026-04-09')
  ) t(id, canonical_id, version, "timestamp", reason, project_id, dt);`;

  it("DuckDB finds the person's events of the project received through the request, oldest first, and their links", async () => {
    const events = await duck.rows(renderPersonExport('events', 'p', person, 'events'), EVENTS);
    expect(events.map((e) => e.event_id)).toEqual(['e1', 'e2']);
    expect(Object.keys(events[0]!)).not.toContain('project_id');
    const links = await duck.rows(renderPersonExport('identities', 'p', person, 'identities'), IDENTITIES);
    expect(links).toEqual([{ id: 'ann-phone', canonical_id: 'ann', version: '1', timestamp: '2026-04-09T10:01:00.000Z', reason: 'identify' }]);
  });

  it('parse with Trino grammar (Athena engine 3) for both streams, and refuse a person without an ID', () => {
    for (const stream of ['events', 'identities'] as const) {
      const sql = renderPersonExport(stream, "it's", person, `tally.${stream}`);
      expect(trinoSyntaxErrors(sql), sql).toEqual([]);
    }
    expect(() => renderPersonExport('events', 'p', { ids: [], through: person.through }, 'events')).toThrow(/at least one ID/);
  });
});

describe('export files on S3', () => {
  const s3 = mockClient(S3Client);
  afterAll(() => s3.restore());
  const client = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' } });
  const files = new S3ExportFiles(client, 'raw-bucket');

  it('writes the file under exports/ of the bucket as NDJSON to save, and deletes the files of a deletion', async () => {
    s3.reset();
    s3.on(PutObjectCommand).resolves({});
    s3.on(DeleteObjectsCommand).resolves({ Deleted: [{ Key: 'exports/project_id=p/a.ndjson' }] });
    await files.put('p', 'a', '{"type":"event"}\n');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'raw-bucket',
      Key: 'exports/project_id=p/a.ndjson',
      Body: '{"type":"event"}\n',
      ContentType: 'application/x-ndjson; charset=utf-8',
      ContentDisposition: 'attachment; filename="tally-export-a.ndjson"',
    });
    expect(await files.remove('p', ['a', 'b'])).toBe(1);
    expect(s3.commandCalls(DeleteObjectsCommand)[0]!.args[0].input.Delete!.Objects).toEqual([
      { Key: 'exports/project_id=p/a.ndjson' },
      { Key: 'exports/project_id=p/b.ndjson' },
    ]);
    expect(await files.remove('p', [])).toBe(0);
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(1);
  });

  it('fails loudly when S3 refuses to delete a file', async () => {
    s3.reset();
    s3.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: 'exports/project_id=p/a.ndjson', Code: 'AccessDenied' }] });
    await expect(files.remove('p', ['a'])).rejects.toThrow(/S3 refused to delete 1 export file\(s\): AccessDenied/);
  });

  it('links to the file with a GET URL presigned now for 15 minutes, with the session token of the signing credentials', async () => {
    s3.reset();
    const nowMs = Date.parse('2026-04-15T11:40:00Z');
    const link = await files.link('p', 'a', nowMs);
    expect(link.expires_at).toBe('2026-04-15T11:55:00.000Z');
    const url = new URL(link.url);
    expect(url.hostname).toBe('raw-bucket.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/exports/project_id%3Dp/a.ndjson');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20260415T114000Z');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session-token');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // No S3 call: a presigned URL is computed locally.
    expect(s3.calls()).toHaveLength(0);
  });
});

/**
 * No partition ceiling (docs/decisions/columnar-events.md): 2,000 projects sending events of 30
 * different days within one hour, through the handlers' raw stream (FirehoseRawStream over the AWS
 * SDK's client) and the local Firehose stand-in, all land in that hour's landing folder and nothing
 * goes to errors/: the landing key holds no project or day, so no number of them can exceed a limit
 * (on AWS, test/stack/ shows the synthesized streams have no record-dependent key either). Each
 * project's events view then shows its 30 days (the compaction of many partitions is
 * test/store/compaction.test.ts's and the crash drill's).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { LOCAL_AWS } from '../../lambdas/local/dynalite';
import { startLocalFirehose } from '../../lambdas/local/firehose-endpoint';
import { firehoseClient } from '../../lambdas/store/firehose-client';
import { FirehoseRawStream } from '../../lambdas/store/firehose-raw-stream';
import type { StoredEvent } from '../../lambdas/domain/event';
import { storedEventFixture } from '../helpers/stored-event';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-landing-scale-'));
const duckdb = new InProcessDuckDb();
afterAll(async () => {
  await duckdb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const PROJECTS = 2_000;
const DAYS = 30;

describe('2,000 projects × 30 event days in one hour', () => {
  it('land whole in one landing hour, nothing under errors/, each project’s days in its events view', { timeout: 240_000 }, async () => {
    const arrival = Date.parse('2026-11-28T10:30:00.000Z');
    const local = await startLocalFirehose({ events: { dir: join(dataDir, 'landing', 'events'), errors: join(dataDir, 'errors', 'events') } }, () => arrival);
    const client = firehoseClient({ ...LOCAL_AWS, endpoint: local.endpoint });
    try {
      const stream = new FirehoseRawStream<StoredEvent>(client, 'events');
      const events: StoredEvent[] = [];
      for (let p = 0; p < PROJECTS; p++) {
        for (let d = 0; d < DAYS; d++) {
          events.push(
            storedEventFixture({
              project_id: `project-${p}`,
              dedupe_key: `k-${p}-${d}`,
              name: 'page_view',
              sent_user_id: `u-${p}`,
              timestamp: `2026-10-${String(d + 1).padStart(2, '0')}T12:00:00.000Z`,
              received_at: '2026-11-28T10:30:00.000Z',
            }),
          );
        }
      }
      await stream.put(events);
    } finally {
      client.destroy();
      await local.close();
    }

    expect(existsSync(join(dataDir, 'errors'))).toBe(false);
    expect(readdirSync(join(dataDir, 'landing', 'events'))).toEqual(['arrival_hour=2026-11-28-10']);
    const hourDir = join(dataDir, 'landing', 'events', 'arrival_hour=2026-11-28-10');
    const lines = readdirSync(hourDir).flatMap((f) => readFileSync(join(hourDir, f), 'utf8').split('\n').filter(Boolean));
    expect(lines).toHaveLength(PROJECTS * DAYS);

    for (const projectId of ['project-0', 'project-1234', 'project-1999']) {
      const views = await streamViews(dataDir, 'events', { projectId });
      const [row] = await duckdb.use(views, (s) => s.rows(`SELECT count(*) AS n, count(DISTINCT dt) AS days FROM events WHERE project_id = '${projectId}'`));
      expect({ n: Number(row!.n), days: Number(row!.days) }).toEqual({ n: DAYS, days: DAYS });
    }
  });
});

/**
 * Where the smoke test looks for its events after ingestion: Athena on AWS, the events view over the data directory locally;
 * and under errors/ (the raw bucket's, or the data directory's), where Firehose puts what it could not
 * deliver to a partition, as error records with the record base64 in rawData.
 */
import { GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, type AthenaClient } from '@aws-sdk/client-athena';
import type { S3Client } from '@aws-sdk/client-s3';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { quoteLiteral } from '../../lambdas/adapters/sql/render';
import { UNIQUE_EVENTS_VIEW } from '../../lambdas/contract/analytics-views';
import { errorRecordTexts } from '../../lambdas/domain/undelivered-record';
import { localErrorObjects, s3ErrorObjects, type ErrorObjects } from '../redrive/objects';
import type { ErrorsFound, RawEventsCheck } from './run';

/** The error records of an errors/ object's text that hold `run` in their record (rawData decoded). */
function recordsOfRun(text: string, run: string): number {
  let n = 0;
  for (const line of errorRecordTexts(text)) {
    try {
      const rawData = (JSON.parse(line) as { rawData?: unknown }).rawData;
      if (typeof rawData === 'string' && Buffer.from(rawData, 'base64').toString('utf8').includes(run)) n++;
    } catch {
      // not an error record: not one of the run's
    }
  }
  return n;
}

/** The errors/ objects written since the run started, and how many of their records hold `run`. */
async function errorsSince(objects: ErrorObjects, run: string, since: Date): Promise<ErrorsFound> {
  const recent = (await objects.list()).filter((o) => o.modified >= since);
  let ofRun = 0;
  for (const o of recent) ofRun += recordsOfRun(await objects.read(o.key), run);
  return { objects: recent.length, ofRun, where: objects.describe };
}

/**
 * Counts the events with one Athena query per poll, in the stack's workgroup (results, scan limit),
 * through the view analysts are told to query (unique_events: each event once), so a deploy whose view
 * is missing or broken fails here.
 */
export function athenaRawEvents(athena: AthenaClient, workGroup: string, database: string, s3: S3Client, rawBucket: string): RawEventsCheck {
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`--database ${JSON.stringify(database)} is not a Glue database name (lower-case letters, digits, _)`);
  return {
    describe: `Athena, ${database}.${UNIQUE_EVENTS_VIEW} in workgroup ${workGroup}`,
    redrive: `npm run redrive -- --bucket ${rawBucket} --events-stream <EventsStreamName> --identities-stream <IdentitiesStreamName>`,
    errors: (run, since) => errorsSince(s3ErrorObjects(s3, rawBucket), run, since),
    async count(projectId, eventName, day) {
      const sql =
        `SELECT count(*) AS n FROM ${database}.${UNIQUE_EVENTS_VIEW} WHERE project_id = ${quoteLiteral(projectId)} ` +
        `AND dt = ${quoteLiteral(day)} AND name = ${quoteLiteral(eventName)}`;
      const { QueryExecutionId: id } = await athena.send(
        new StartQueryExecutionCommand({ QueryString: sql, WorkGroup: workGroup, QueryExecutionContext: { Database: database } }),
      );
      for (let waited = 0; ; waited += 1000) {
        const { QueryExecution: q } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
        const state = q?.Status?.State;
        if (state === 'SUCCEEDED') break;
        if (state === 'FAILED' || state === 'CANCELLED') throw new Error(`Athena query ${id} ${state}: ${q?.Status?.StateChangeReason ?? 'no reason given'}`);
        if (waited > 120_000) throw new Error(`Athena query ${id} still ${state} after 2 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      const out = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: id }));
      return Number(out.ResultSet?.Rows?.[1]?.Data?.[0]?.VarCharValue ?? 0);
    },
  };
}

/**
 * Counts the events through the events view over `npm start`'s data directory (landing hours and
 * curated partitions, each event once), as the AWS check counts them through Athena.
 */
export function localRawEvents(dataDir: string): RawEventsCheck {
  return {
    describe: `the events view over ${dataDir} (landing/ and curated/)`,
    redrive: `npm run redrive -- --data-dir ${dataDir}`,
    errors: (run, since) => errorsSince(localErrorObjects(dataDir), run, since),
    async count(projectId, eventName, day) {
      const duckdb = new InProcessDuckDb({ threads: '1' });
      try {
        const views = await streamViews(dataDir, 'events', { projectId, fromDt: day, toDt: day });
        const sql = `SELECT count(*) AS n FROM events WHERE project_id = ${quoteLiteral(projectId)} AND dt = ${quoteLiteral(day)} AND name = ${quoteLiteral(eventName)}`;
        return Number((await duckdb.use(views, (session) => session.rows(sql)))[0]?.n ?? 0);
      } finally {
        await duckdb.close();
      }
    },
  };
}

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
import { readCompactionStateObject } from '../../lambdas/adapters/athena-compaction';
import { listFolders } from '../../lambdas/adapters/s3-prefix';
import { landingHourFiles, readCompactionState } from '../../lambdas/adapters/duckdb-stream-views';
import { ARRIVAL_HOUR, compactionStateKey, isLandingHour, landingPrefix, STREAM_NAMES, type StreamName } from '../../lambdas/contract/landing';
import type { CompactionState } from '../../lambdas/domain/compaction-state';
import { hoursBehind } from '../../lambdas/domain/compaction-lag';
import { LOCAL_COMPACTION } from '../../lambdas/local/compaction-scheduler';
import { compactionCloseAfterSeconds } from '../../lib/grants';
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

/** A run every 15 minutes that may take its whole 15-minute timeout, and a margin: closed hours older than this mean compaction is failing. */
const AWS_COMPACTION_SLACK_MS = 60 * 60_000;
/** npm start compacts every minute. */
const LOCAL_COMPACTION_SLACK_MS = 5 * 60_000;

/** The compaction check's line, or an error naming the hours waiting and where to look. */
async function compactionLine(
  read: (stream: StreamName) => Promise<{ state: CompactionState; hours: string[] }>,
  closeAfterMs: number,
  slackMs: number,
  where: (stream: StreamName) => string,
  look: string,
): Promise<string> {
  const parts: string[] = [];
  for (const stream of STREAM_NAMES) {
    const { state, hours } = await read(stream);
    const behind = hoursBehind(hours, state.compactedThrough, Date.now(), closeAfterMs, slackMs);
    if (behind.length > 0) {
      throw new Error(
        `${behind.length} closed landing hour(s) of ${stream} wait uncompacted (${behind[0]} to ${behind.at(-1)}; ${where(stream)} says compacted through ${state.compactedThrough ?? 'nothing'}): ` +
          `the compaction job is failing or stopped. Nothing is lost (readers see those hours from landing), but queries scan more each hour. ${look}`,
      );
    }
    parts.push(`${stream} compacted through ${state.compactedThrough ?? 'nothing yet'}, ${state.retiring.length} generation(s) to retire`);
  }
  return parts.join('; ');
}

/** The events of a project on a day (the partition), as a WHERE condition. */
const onDay = (projectId: string, day: string) => `project_id = ${quoteLiteral(projectId)} AND dt = ${quoteLiteral(day)}`;
/** The events naming a user ID, resolved or as sent (the deletion's own rule names both). */
const ofUser = (userId: string) => `(user_id = ${quoteLiteral(userId)} OR sent_user_id = ${quoteLiteral(userId)})`;

/** count(*) of unique_events under `where`, with one Athena query in the workgroup. */
async function athenaCount(athena: AthenaClient, workGroup: string, database: string, where: string): Promise<number> {
  const sql = `SELECT count(*) AS n FROM ${database}.${UNIQUE_EVENTS_VIEW} WHERE ${where}`;
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
}

/** count(*) of the events view over the data directory under `where`, with DuckDB. */
async function localCount(dataDir: string, projectId: string, day: string, where: string): Promise<number> {
  const duckdb = new InProcessDuckDb({ threads: '1' });
  try {
    const views = await streamViews(dataDir, 'events', { projectId, fromDt: day, toDt: day });
    return Number((await duckdb.use(views, (session) => session.rows(`SELECT count(*) AS n FROM events WHERE ${where}`)))[0]?.n ?? 0);
  } finally {
    await duckdb.close();
  }
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
    compaction: () =>
      compactionLine(
        async (stream) => ({
          state: await readCompactionStateObject(s3, rawBucket, stream),
          hours: (await listFolders(s3, rawBucket, `${landingPrefix(stream)}${ARRIVAL_HOUR}=`)).filter(isLandingHour),
        }),
        compactionCloseAfterSeconds() * 1000,
        AWS_COMPACTION_SLACK_MS,
        (stream) => `s3://${rawBucket}/${compactionStateKey(stream)}`,
        'See the compact-landing function\'s log ("compaction failed") and the alarm compact-landing-CompactionFailed (docs/deploy.md, "Compaction").',
      ),
    count: (projectId, eventName, day) => athenaCount(athena, workGroup, database, `${onDay(projectId, day)} AND name = ${quoteLiteral(eventName)}`),
    countPerson: (projectId, userId, day) => athenaCount(athena, workGroup, database, `${onDay(projectId, day)} AND ${ofUser(userId)}`),
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
    compaction: () =>
      compactionLine(
        async (stream) => ({ state: await readCompactionState(dataDir, stream), hours: [...(await landingHourFiles(dataDir, stream)).keys()] }),
        LOCAL_COMPACTION.closeAfterMs,
        LOCAL_COMPACTION_SLACK_MS,
        (stream) => `${dataDir}/${compactionStateKey(stream)}`,
        'See the npm start log ("compaction failed").',
      ),
    count: (projectId, eventName, day) => localCount(dataDir, projectId, day, `${onDay(projectId, day)} AND name = ${quoteLiteral(eventName)}`),
    countPerson: (projectId, userId, day) => localCount(dataDir, projectId, day, `${onDay(projectId, day)} AND ${ofUser(userId)}`),
  };
}

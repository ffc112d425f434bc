/** Where the smoke test looks for its events after ingestion: Athena on AWS, the NDJSON files locally. */
import { GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, type AthenaClient } from '@aws-sdk/client-athena';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { quoteLiteral } from '../../lambdas/adapters/sql/render';
import { UNIQUE_EVENTS_VIEW } from '../../lambdas/contract/analytics-views';
import type { RawEventsCheck } from './run';

/**
 * Counts the events with one Athena query per poll, in the stack's workgroup (results, scan limit),
 * through the view analysts are told to query (unique_events: each event once), so a deploy whose view
 * is missing or broken fails here.
 */
export function athenaRawEvents(athena: AthenaClient, workGroup: string, database: string): RawEventsCheck {
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`--database ${JSON.stringify(database)} is not a Glue database name (lower-case letters, digits, _)`);
  return {
    describe: `Athena, ${database}.${UNIQUE_EVENTS_VIEW} in workgroup ${workGroup}`,
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

/** Counts the events in the files the local Firehose endpoint writes (`npm start`'s data directory). */
export function localRawEvents(dataDir: string): RawEventsCheck {
  const root = join(dataDir, 'events');
  return {
    describe: `local files under ${root}`,
    async count(projectId, eventName, day) {
      // The day's files, in its arrival-hour folders (received=<hour>/, contract/arrival-partition.ts) or directly under it.
      const dir = join(root, `project_id=${projectId}`, `dt=${day}`);
      const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
      let n = 0;
      for (const entry of entries) {
        if (!entry.isFile() || !entry.name.endsWith('.ndjson')) continue;
        for (const line of (await readFile(join(entry.parentPath, entry.name), 'utf8')).split('\n')) {
          if (line && (JSON.parse(line) as { name?: string }).name === eventName) n++;
        }
      }
      return n;
    },
  };
}

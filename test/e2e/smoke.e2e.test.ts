/** `npm run smoke` against the local server, so the deploy check cannot rot (bin/smoke.ts). */
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smokeOptionsFrom } from '../../bin/smoke';
import { athenaRawEvents, localRawEvents } from '../../bin/smoke/raw-stream';
import { runSmoke } from '../../bin/smoke/run';
import { ADMIN_TOKEN, startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('smoke test', () => {
  it('passes every step against the local server, reading the events from the local raw files', async () => {
    const lines: string[] = [];
    const results = await runSmoke({
      baseUrl: stack.url,
      adminToken: ADMIN_TOKEN,
      rawEvents: localRawEvents(stack.dataDir),
      rawPollMs: 100,
      print: (l) => lines.push(l),
    });
    expect(results.filter((r) => r.outcome !== 'pass')).toEqual([]);
    expect(results.map((r) => r.name)).toEqual([
      'create a project',
      'create an API key',
      'POST /v1/events answers 204',
      'POST /api/events answers 200 {"success":true,"events_received":1}',
      'POST /v1/events without a valid key answers 401 {"error":"Invalid or missing API key"}',
      'POST /api/events without a valid key answers 401 {"success":false,"error":"Invalid or missing API key"}',
      'a burst over a free key’s limit gets 429 with Retry-After',
      'create and start an experiment',
      'GET /v1/experiments assigns a configured variant, the same on a second request',
      'GET /v1/experiments/configs lists the experiment',
      `both events reach the raw stream (local files under ${stack.dataDir}/events)`,
      'clean up: stop the experiment and revoke the keys',
    ]);
    expect(lines.at(-1)).toMatch(/^Summary: 12 passed, 0 failed, 0 skipped in [\d.]+ s$/);
    // The events really are where the step looked, and nothing secret was printed.
    expect(stack.rawEvents().filter((e) => e.name === 'tally_smoke_test')).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(ADMIN_TOKEN);
    expect(lines.join('\n')).not.toMatch(/tally_[A-Za-z0-9_-]{20,}/);
  });

  it('reports a failure, skips what depends on it, and times out waiting for the raw stream with progress', async () => {
    const lines: string[] = [];
    const wrongToken = await runSmoke({ baseUrl: stack.url, adminToken: 'not-the-admin-token-000', print: (l) => lines.push(l) });
    expect(wrongToken[0]).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('expected 201, got 401') });
    // The 401 checks need no project and still run; everything else needs it and is skipped.
    expect(wrongToken.filter((r) => r.outcome === 'pass').map((r) => r.name)).toEqual([
      expect.stringContaining('/v1/events without a valid key'),
      expect.stringContaining('/api/events without a valid key'),
    ]);
    expect(wrongToken.filter((r) => r.outcome === 'skip')).toHaveLength(9);
    expect(lines.at(-1)).toMatch(/^Summary: 2 passed, 1 failed, 9 skipped/);

    lines.length = 0;
    const never = { describe: 'nowhere', count: async () => 0 };
    const waited = await runSmoke({
      baseUrl: stack.url,
      adminToken: ADMIN_TOKEN,
      rawEvents: never,
      rawTimeoutMs: 300,
      rawPollMs: 100,
      print: (l) => lines.push(l),
    });
    expect(waited.find((r) => r.name.startsWith('both events'))).toMatchObject({ outcome: 'fail', detail: expect.stringMatching(/0 of 2 events after \d+ s/) });
    expect(lines.some((l) => l.includes('… 0 of 2 events so far'))).toBe(true);
  });

  it('takes the admin token from TALLY_ADMIN_TOKEN and refuses unclear arguments', async () => {
    const options = await smokeOptionsFrom([stack.url, '--data-dir', stack.dataDir], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(options).toMatchObject({ baseUrl: stack.url, adminToken: ADMIN_TOKEN, rawEvents: { describe: expect.stringContaining(stack.dataDir) } });
    await expect(smokeOptionsFrom([stack.url], {})).rejects.toThrow(/No admin token: pass --secret-id/);
    await expect(smokeOptionsFrom([], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN })).rejects.toThrow(/exactly one API URL/);
    await expect(smokeOptionsFrom([stack.url, '--workgroup', 'w'], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN })).rejects.toThrow(
      /--workgroup and --database go together/,
    );
    await expect(smokeOptionsFrom([stack.url, '--workgroup', 'w', '--database', 'Bad-Name'], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN })).rejects.toThrow(
      /not a Glue database name/,
    );
  });
});

describe('smoke test on AWS: the Athena check (mocked Athena)', () => {
  it('counts the run’s events of the project and day in the stack’s workgroup', async () => {
    const athena = mockClient(AthenaClient);
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce({ QueryExecution: { Status: { State: 'RUNNING' } } })
      .resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    athena.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [{ Data: [{ VarCharValue: 'n' }] }, { Data: [{ VarCharValue: '2' }] }] } });
    const check = athenaRawEvents(
      new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }),
      'Tally-analysts',
      'tally',
    );
    expect(await check.count("p'1", 'tally_smoke_test', '2026-11-22')).toBe(2);
    const input = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input;
    expect(input).toMatchObject({ WorkGroup: 'Tally-analysts', QueryExecutionContext: { Database: 'tally' } });
    // Partition filters first (project_id is injected: Athena requires it), literals quoted.
    // Through the view analysts query (each event once), which the deploy must have created.
    expect(input.QueryString).toBe(
      "SELECT count(*) AS n FROM tally.unique_events WHERE project_id = 'p''1' AND dt = '2026-11-22' AND name = 'tally_smoke_test'",
    );
    athena.restore();
  });
});

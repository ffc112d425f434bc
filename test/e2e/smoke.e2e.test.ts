/** `npm run smoke` against the local server, so the deploy check cannot rot (bin/smoke.ts). */
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { gzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smokeOptionsFrom } from '../../bin/smoke';
import { athenaRawEvents, localRawEvents } from '../../bin/smoke/raw-stream';
import { BURST_STEP, DELETION_STEP, runSmoke, THROTTLING_DOCS, type SmokeOptions } from '../../bin/smoke/run';
import type { ApiKeyStore } from '../../lambdas/ports';
import { ADMIN_TOKEN, startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
/** While set, the compaction job waits on it before each step of a person's deletion (the local server's deletionStepHook). */
let holdDeletions: Promise<void> | undefined;
beforeAll(async () => {
  // The compaction job's schedule every second (every minute under npm start), so the smoke person's deletion is carried out for real.
  stack = await startTestStack({ compactionIntervalMs: 1000, deletionStepHook: () => holdDeletions });
});
afterAll(() => stack.stop());

/** The whole smoke against the local server, reading the local raw files, its lines into `lines`. */
const localSmoke = (lines: string[], options: Partial<SmokeOptions> = {}) =>
  runSmoke({
    baseUrl: stack.url,
    adminToken: ADMIN_TOKEN,
    rawEvents: localRawEvents(stack.dataDir),
    rawPollMs: 100,
    dashboardUrl: `${stack.url}/`,
    print: (l) => lines.push(l),
    ...options,
  });

describe('smoke test', () => {
  it('passes every step against the local server, reading the events from the local raw files', async () => {
    const lines: string[] = [];
    const results = await localSmoke(lines);
    expect(
      results.filter((r) => r.outcome !== 'pass'),
      lines.join('\n'),
    ).toEqual([]);
    expect(results.map((r) => r.name)).toEqual([
      'create a project',
      'create an API key',
      'POST /v1/events answers 204',
      'POST /api/events answers 200 {"success":true,"events_received":1}',
      'POST /v1/events without a valid key answers 401 {"error":"Invalid or missing API key"}',
      'POST /api/events without a valid key answers 401 {"success":false,"error":"Invalid or missing API key"}',
      BURST_STEP,
      'create and start an experiment',
      'GET /v1/experiments assigns a configured variant, the same on a second request',
      'GET /v1/experiments/configs lists the experiment',
      'POST /v1/events: an exposure to variant a and a goal event, after the start',
      `both events reach the raw stream (the events view over ${stack.dataDir} (landing/ and curated/))`,
      "nothing written under errors/ during the run (Firehose's undeliverable records)",
      'the compaction job keeps up (its state against the closed landing hours)',
      'GET /admin/v1/projects/{id}/events lists both events',
      'GET …/events?user_id= lists the person’s events and names them by their email',
      'GET /admin/v1/projects/{id}/event-names names the event with its count',
      'GET /admin/v1/projects/{id}/property-names lists the property names of the latest events (the listing on the results engine)',
      'POST …/plan measures a baseline from the delivered events (the planning query on the results engine)',
      'POST …/insights/trends runs the trends query on the results engine and answers (polling its query while it runs)',
      'POST …/insights/funnels and …/insights/retention run their queries and answer',
      'saved insights and dashboards: save one, list it, show it on a dashboard, delete both',
      'GET /admin/v1/audit lists the run’s writes, made with the admin token (a machine sign-in)',
      'GET /admin/v1/projects/{id}/users lists the smoke users with their profile fields',
      'GET …/users finds a user by email and by name, and pages with next_cursor',
      'POST …/results/refresh ends committed: true with a: 1 enrolled, 1 converted; b: none',
      DELETION_STEP,
      'the dashboard answers with its Content-Security-Policy',
      'clean up: stop the experiment and revoke the keys',
    ]);
    expect(lines.at(-1)).toMatch(/^Summary: 29 passed, 0 failed, 0 skipped in [\d.]+ s$/);
    // The events really are where the step looked, and the deleted smoke person's are gone from the
    // landing files (the api user's and the enrolled user's stay); nothing secret was printed.
    const deletion = results.find((r) => r.name === DELETION_STEP)!.detail;
    expect(deletion).toMatch(/^deletion \S+ done after \d+ s: 2 event\(s\) found before, [2-9]\d* row\(s\) removed, 0 left$/);
    expect(stack.rawEvents().filter((e) => e.name === 'tally_smoke_test')).toHaveLength(2);
    expect(stack.rawEvents().filter((e) => /^smoke-[0-9a-f]{8}-v1$/.test(e.user_id ?? ''))).toEqual([]);
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
    expect(wrongToken.filter((r) => r.outcome === 'skip')).toHaveLength(26);
    expect(lines.at(-1)).toMatch(/^Summary: 2 passed, 1 failed, 26 skipped/);
    // The FAIL line names the function's log group (found by the stack's logical IDs) and the request ID.
    expect(wrongToken[0]!.detail).toMatch(/request ID (x-[a-z-]+: \S+|not sent)/);
    // The route's function is in a nested stack: the command finds that stack in Tally, then the log group in it.
    expect(wrongToken[0]!.detail).toContain(
      `log group of admin-projects-create: aws cloudformation describe-stack-resources --stack-name "$(aws cloudformation describe-stack-resources --stack-name Tally --query "StackResources[?starts_with(LogicalResourceId, 'AdminRoutesNestedStack')].PhysicalResourceId" --output text)" --query "StackResources[?starts_with(LogicalResourceId, 'RouteadminprojectscreateLogs')]`,
    );

    lines.length = 0;
    const never = {
      describe: 'nowhere',
      count: async () => 0,
      errors: async () => ({ objects: 0, ofRun: 0, where: 'nowhere/errors/' }),
      redrive: 'npm run redrive',
    };
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

  it('fails the deletion step when the deletion is not done in time, with progress and a FAIL line naming the alarm and the job’s log group', async () => {
    const lines: string[] = [];
    // The deletion is held before its first step until the smoke is over: pending or running at the
    // deadline whenever the job's runs fall (a deletion can take under 150 ms here).
    let release = () => {};
    holdDeletions = new Promise((resolve) => (release = resolve));
    const results = await localSmoke(lines, { deletionTimeoutMs: 150 }).finally(() => {
      release();
      holdDeletions = undefined;
    });
    const step = results.find((r) => r.name === DELETION_STEP)!;
    expect(step).toMatchObject({ outcome: 'fail', detail: expect.stringMatching(/^deletion \S+ still (pending|running) after \d+ s \(timeout 0.15 s\)/) });
    expect(step.detail).toContain('alarm compact-landing-DeletionFailed');
    expect(step.detail).toContain(
      `log group of compact-landing: aws cloudformation describe-stack-resources --stack-name Tally --query "StackResources[?starts_with(LogicalResourceId, 'JobcompactlandingLogs')].PhysicalResourceId" --output text`,
    );
    expect(lines.some((l) => /… deletion \S+ (pending|running), \d+ s of at most 0.15 s/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^Summary: 28 passed, 1 failed, 0 skipped/);
  });

  it('takes the admin token from TALLY_ADMIN_TOKEN and refuses unclear arguments', async () => {
    const options = await smokeOptionsFrom([stack.url, '--data-dir', stack.dataDir], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(options).toMatchObject({ baseUrl: stack.url, adminToken: ADMIN_TOKEN, rawEvents: { describe: expect.stringContaining(stack.dataDir) } });
    await expect(smokeOptionsFrom([stack.url], {})).rejects.toThrow(/No admin token: pass --secret-id/);
    await expect(smokeOptionsFrom([], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN })).rejects.toThrow(/exactly one API URL/);
    await expect(smokeOptionsFrom([stack.url, '--workgroup', 'w'], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN })).rejects.toThrow(
      /--workgroup, --database and --raw-bucket go together/,
    );
    await expect(smokeOptionsFrom([stack.url, '--workgroup', 'w', '--database', 'd'], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN })).rejects.toThrow(
      /--workgroup, --database and --raw-bucket go together/,
    );
    await expect(
      smokeOptionsFrom([stack.url, '--workgroup', 'w', '--database', 'Bad-Name', '--raw-bucket', 'b'], { TALLY_ADMIN_TOKEN: ADMIN_TOKEN }),
    ).rejects.toThrow(/not a Glue database name/);
  });
});

interface BurstAnswer {
  status: number;
  body: unknown;
  headers: (n: number) => Record<string, string>;
}
/** API Gateway's own 500 (what it sends when Lambda refuses an invocation), with its request ID headers. */
const LAMBDA_THROTTLED: BurstAnswer = {
  status: 500,
  body: { error: 'Internal server error' },
  headers: (n) => ({ 'x-amzn-RequestId': `req-${n}`, 'x-amz-apigw-id': `gw-${n}` }),
};

/**
 * A stand-in for a deployed API: admin calls work, /v1/events answers the burst key's first request,
 * then burstAnswer (by default what an account with too little Lambda concurrency answers).
 */
async function throttledApi(burstAnswer: BurstAnswer = LAMBDA_THROTTLED): Promise<{ url: string; server: Server }> {
  let keys = 0;
  const burstUses = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? '' : JSON.stringify(body));
      const auth = req.headers.authorization ?? '';
      if (req.url === '/admin/v1/projects') return json(201, { id: 'p1' });
      if (req.url === '/admin/v1/projects/p1/keys') {
        keys += 1;
        return json(201, { id: `k${keys}`, key: `key-${keys}`, key_prefix: `key-${keys}`, plan: 'free', rate_limit_per_minute: 100 });
      }
      if (req.url === '/v1/events' && auth === 'Bearer key-2') {
        const n = (burstUses.get(auth) ?? 0) + 1;
        burstUses.set(auth, n);
        if (n === 1) return json(204, undefined);
        return json(burstAnswer.status, burstAnswer.body, burstAnswer.headers(n));
      }
      return json(404, { error: 'No such route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('smoke test against an account short of Lambda concurrency', () => {
  it('names Lambda throttling and the quota to raise, with the request ID and the log group, in the burst step', async () => {
    const api = await throttledApi();
    try {
      const lines: string[] = [];
      const results = await runSmoke({ baseUrl: api.url, adminToken: 'x'.repeat(32), stackName: 'TallyStaging', print: (l) => lines.push(l) });
      const burst = results.find((r) => r.name.startsWith('a burst over'))!;
      expect(burst.outcome).toBe('fail');
      expect(burst.detail).toContain('unexpected 500 {"error":"Internal server error"} during 20 parallel requests');
      expect(burst.detail).toContain('most likely Lambda throttling');
      expect(burst.detail).toContain('"Lambda concurrent executions" quota');
      expect(burst.detail).toMatch(/request ID x-amzn-requestid: req-\d+/);
      expect(burst.detail).toContain("--stack-name TallyStaging --query \"StackResources[?starts_with(LogicalResourceId, 'IngestRoutesNestedStack')]");
      expect(burst.detail).toContain("--query \"StackResources[?starts_with(LogicalResourceId, 'Routeingestv1Logs')]");
      const line = lines.find((l) => l.includes('FAIL  a burst over'))!;
      expect(line).toContain('Lambda concurrent executions');
      expect(line).toContain('req-');
    } finally {
      api.server.close();
    }
  });
});

/** The AWS raw-stream check of a stack whose workgroup is Tally-analysts, database tally and raw bucket tally-raw. */
const awsCheck = () => {
  const client = { region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } };
  return athenaRawEvents(new AthenaClient(client), 'Tally-analysts', 'tally', new S3Client(client), 'tally-raw');
};

describe('smoke test on AWS: the Athena check (mocked Athena)', () => {
  it('counts the run’s events of the project and day in the stack’s workgroup', async () => {
    const athena = mockClient(AthenaClient);
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce({ QueryExecution: { Status: { State: 'RUNNING' } } })
      .resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    athena.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [{ Data: [{ VarCharValue: 'n' }] }, { Data: [{ VarCharValue: '2' }] }] } });
    const check = awsCheck();
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

  it('counts a person’s events left, by the ID resolved or as sent, in the same view', async () => {
    const athena = mockClient(AthenaClient);
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-2' });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    athena.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [{ Data: [{ VarCharValue: 'n' }] }, { Data: [{ VarCharValue: '0' }] }] } });
    expect(await awsCheck().countPerson!('p1', "smoke-1'-v1", '2026-11-22')).toBe(0);
    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input).toMatchObject({
      WorkGroup: 'Tally-analysts',
      QueryString:
        "SELECT count(*) AS n FROM tally.unique_events WHERE project_id = 'p1' AND dt = '2026-11-22' AND (user_id = 'smoke-1''-v1' OR sent_user_id = 'smoke-1''-v1')",
    });
    athena.restore();
  });
});

describe('smoke test when Firehose cannot deliver the events (they land under errors/)', () => {
  it('fails the raw-stream step as soon as they show under errors/, saying what it means and the redrive command, and fails the errors/ step', async () => {
    const lines: string[] = [];
    stack.firehose.undeliverable = true;
    let results;
    try {
      results = await runSmoke({
        baseUrl: stack.url,
        adminToken: ADMIN_TOKEN,
        rawEvents: localRawEvents(stack.dataDir),
        rawTimeoutMs: 5_000,
        rawPollMs: 100,
        print: (l) => lines.push(l),
      });
    } finally {
      stack.firehose.undeliverable = false;
    }
    const rawStep = results.find((r) => r.name.startsWith('both events'))!;
    expect(rawStep.outcome).toBe('fail');
    expect(rawStep.detail).toMatch(
      /^0 of 2 events delivered; \d+ of this run's records are under .*\/errors\/: Firehose accepted them \(the client got its 204\)/,
    );
    expect(rawStep.detail).toContain(`npm run redrive -- --data-dir ${stack.dataDir}`);
    expect(rawStep.detail).toContain('Firehose-DeliveryErrorsWritten');
    // Not a timeout: it stopped at the first poll, which found them.
    expect(lines.some((l) => l.includes('events so far'))).toBe(false);
    const errorsStep = results.find((r) => r.name.startsWith('nothing written under errors/'))!;
    expect(errorsStep).toMatchObject({ outcome: 'fail', detail: expect.stringContaining("of this run's records are under") });
    expect(lines.find((l) => l.includes('FAIL  nothing written under errors/'))).toContain('npm run redrive');
  });
});

describe('smoke test on AWS: errors/ of the raw bucket (mocked S3)', () => {
  it('counts the run’s records in the objects written since the run started, Firehose’s GZIP read', async () => {
    const s3 = mockClient(S3Client);
    const since = new Date('2026-11-28T10:00:00Z');
    const record = (raw: string) => JSON.stringify({ errorCode: 'X', errorMessage: 'y', rawData: Buffer.from(raw).toString('base64') }) + '\n';
    s3.on(ListObjectsV2Command).resolves({
      Contents: [
        { Key: 'errors/events/partitioning-failed/dt=2026-11-28/new.gz', LastModified: new Date('2026-11-28T10:05:00Z') },
        { Key: 'errors/events/partitioning-failed/dt=2026-11-27/old.gz', LastModified: new Date('2026-11-27T10:05:00Z') },
      ],
    });
    const body = gzipSync(record('{"properties":{"run":"smoke-abc"}}') + record('{"properties":{"run":"other"}}'));
    s3.on(GetObjectCommand, { Key: 'errors/events/partitioning-failed/dt=2026-11-28/new.gz' }).resolves({
      Body: { transformToByteArray: async () => body } as never,
    });
    const check = awsCheck();
    expect(await check.errors('smoke-abc', since)).toEqual({ objects: 1, ofRun: 1, where: 's3://tally-raw/errors/' });
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(1);
    expect(check.redrive).toBe('npm run redrive -- --bucket tally-raw --events-stream <EventsStreamName> --identities-stream <IdentitiesStreamName>');
    s3.restore();
  });
});

describe('smoke test when API Gateway lets the burst through (usage-plan throttling is best-effort)', () => {
  it('passes the burst step and reports how many requests went through, none answered 429, with the documentation', async () => {
    // The key's usage plan not applied yet: the local server looks the key up with a limit no burst reaches.
    const lenient = (keys: ApiKeyStore): ApiKeyStore => ({
      create: (key) => keys.create(key),
      findByHash: async (hash) => {
        const key = await keys.findByHash(hash);
        return key && { ...key, rate_limit_per_minute: 1_000_000 };
      },
      listByProject: (projectId) => keys.listByProject(projectId),
      relabel: (projectId, keyId, label) => keys.relabel(projectId, keyId, label),
      revoke: (projectId, keyId) => keys.revoke(projectId, keyId),
    });
    const late = await startTestStack({ overrides: (deps) => ({ ...deps, keys: lenient(deps.keys) }) });
    try {
      const lines: string[] = [];
      const results = await runSmoke({ baseUrl: late.url, adminToken: ADMIN_TOKEN, print: (l) => lines.push(l) });
      const burst = results.find((r) => r.name === BURST_STEP)!;
      expect(burst.outcome, lines.join('\n')).toBe('pass');
      expect(burst.detail).toMatch(
        /^201 requests over a limit of 100 per minute, none answered 429: allowed, API Gateway applies usage-plan throttling "on a best-effort basis"/,
      );
      expect(burst.detail).toContain(THROTTLING_DOCS);
      expect(lines.find((l) => l.includes(`PASS  ${BURST_STEP}`))).toContain('none answered 429');
    } finally {
      await late.stop();
    }
  });

  it('still fails the step on a 429 with the wrong body, and on a 5xx', async () => {
    const wrong = await throttledApi({ status: 429, body: { message: 'Too Many Requests' }, headers: () => ({ 'Retry-After': '1' }) });
    try {
      const results = await runSmoke({ baseUrl: wrong.url, adminToken: 'x'.repeat(32), print: () => undefined });
      expect(results.find((r) => r.name === BURST_STEP)).toMatchObject({ outcome: 'fail', detail: 'unexpected 429 body {"message":"Too Many Requests"}' });
    } finally {
      wrong.server.close();
    }
    const failing = await throttledApi();
    try {
      const results = await runSmoke({ baseUrl: failing.url, adminToken: 'x'.repeat(32), print: () => undefined });
      expect(results.find((r) => r.name === BURST_STEP)).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('unexpected 500') });
    } finally {
      failing.server.close();
    }
  });
});

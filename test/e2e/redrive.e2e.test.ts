/**
 * `npm run redrive -- --data-dir <dir>` against the local server's data directory, while it runs: what
 * the local Firehose stand-in could not deliver (written under errors/ as Firehose's error records)
 * is re-sent through the raw streams and listed once; a second run re-sends nothing; a run that
 * re-sends a record again is harmless (readers count an event once); what cannot be re-sent stays
 * under errors/ with its reason (bin/redrive.ts).
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STREAMS } from '../../lambdas/local/server';
import { startTestProject, type TestStack } from '../helpers/local';

const ROOT = join(import.meta.dirname, '..', '..');

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('redrive'));
});
afterAll(() => stack.stop());

/** The command as documented, in its own process. */
async function redrive(): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '-s', 'redrive', '--', '--data-dir', stack.dataDir], { cwd: ROOT });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** Every file under a folder of the data directory, relative to it. */
function files(folder: string): string[] {
  const dir = join(stack.dataDir, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(stack.dataDir, join(e.parentPath, e.name)))
    .sort();
}

const listed = async (name: string) => {
  const res = await stack.admin('GET', `/admin/v1/projects/${project}/events?name=${encodeURIComponent(name)}&limit=100`);
  expect(res.status).toBe(200);
  return (res.body.events as Array<{ user_id: string }>).map((e) => e.user_id).sort();
};

describe('npm run redrive, locally', () => {
  it('re-sends what Firehose could not deliver: listed once after the first run, still once after the second', async () => {
    stack.firehose.undeliverable = true;
    const res = await stack.post('/v1/events', key, {
      events: [
        { name: 'stuck_purchase', user_id: 'anon-1', timestamp: new Date().toISOString(), properties: { amount: 12 } },
        { name: '$identify', user_id: 'user-1', timestamp: new Date().toISOString(), properties: { $anonymous_id: 'anon-1', email: 'r@example.com' } },
      ],
    });
    stack.firehose.undeliverable = false;
    // The client is told they are stored, as on AWS: Firehose accepted the records.
    expect(res.status, res.text).toBe(204);
    expect(stack.rawEvents(project)).toEqual([]);
    expect(stack.identityRecords(project)).toEqual([]);
    expect(await listed('stuck_purchase')).toEqual([]);
    expect(files('errors').some((f) => f.startsWith('errors/events/delivery-failed/dt='))).toBe(true);
    expect(files('errors').some((f) => f.startsWith('errors/identities/delivery-failed/dt='))).toBe(true);

    const first = await redrive();
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/DONE {2}errors\/events\/delivery-failed\/dt=[\d-]+\/\S+: 2 event\(s\) re-sent, object moved to redriven\//);
    expect(first.out).toMatch(/DONE {2}errors\/identities\/delivery-failed\/dt=[\d-]+\/\S+: \d+ identity record\(s\) re-sent/);
    expect(first.out).toMatch(
      /Summary: 2 object\(s\) read, 2 event\(s\) and \d+ identity record\(s\) re-sent, 2 object\(s\) moved to redriven\/, 0 line\(s\) left under errors\/\./,
    );
    expect(files('errors')).toEqual([]);
    expect(files('redriven')).toHaveLength(2);
    // Listed once (under the ID it was stored with), and the identity link is back in the identity stream.
    expect(await listed('stuck_purchase')).toEqual(['anon-1']);
    expect(stack.identityRecords(project).length).toBeGreaterThan(0);

    const second = await redrive();
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/Summary: 0 object\(s\) read, 0 event\(s\) and 0 identity record\(s\) re-sent/);
    expect(await listed('stuck_purchase')).toEqual(['anon-1']);
    expect(stack.rawEvents(project).filter((e) => e.name === 'stuck_purchase')).toHaveLength(1);
  });

  it('re-sending a record again (a run stopped before it moved the object) is harmless: still listed once', async () => {
    const [events] = files('redriven').filter((f) => f.startsWith('redriven/errors/events/'));
    const back = join(stack.dataDir, events!.slice('redriven/'.length));
    mkdirSync(join(back, '..'), { recursive: true });
    cpSync(join(stack.dataDir, events!), back);
    const again = await redrive();
    expect(again.code, again.out).toBe(0);
    expect(stack.rawEvents(project).filter((e) => e.name === 'stuck_purchase')).toHaveLength(2);
    expect(await listed('stuck_purchase')).toEqual(['anon-1']);
  });

  it('leaves what it cannot re-send under errors/ with the reason, and says so, the same on a second run', async () => {
    // A line without its project, undelivered (nothing the handlers write lacks one: the redrive must
    // still refuse to re-send it), and a line that is not an error record.
    const client = new FirehoseClient({ region: 'us-east-1', endpoint: stack.firehose.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    stack.firehose.undeliverable = true;
    await client.send(
      new PutRecordBatchCommand({
        DeliveryStreamName: LOCAL_STREAMS.events,
        Records: [{ Data: Buffer.from(JSON.stringify({ name: 'orphan', timestamp: new Date().toISOString() }) + '\n') }],
      }),
    );
    stack.firehose.undeliverable = false;
    client.destroy();
    mkdirSync(join(stack.dataDir, 'errors', 'events', 'hand-made'), { recursive: true });
    writeFileSync(join(stack.dataDir, 'errors', 'events', 'hand-made', 'garbage.ndjson'), 'this is not an error record\n');

    const first = await redrive();
    expect(first.code, first.out).toBe(1);
    expect(first.out).toContain('missing partition or dedupe key: no project_id, received_at, dedupe_key (a non-empty string each)');
    expect(first.out).toContain('not an error record: the line is not JSON');
    expect(first.out).toMatch(/2 line\(s\) left under errors\/ \(1 missing partition or dedupe key, 1 not an error record\)/);
    const left = files('errors');
    expect(left).toHaveLength(2);
    const lines = left.flatMap((f) => readFileSync(join(stack.dataDir, f), 'utf8').split('\n').filter(Boolean)).map((l) => JSON.parse(l));
    expect(lines.map((l) => l.redriveError).sort()).toEqual([
      'missing partition or dedupe key: no project_id, received_at, dedupe_key (a non-empty string each)',
      'not an error record: the line is not JSON',
    ]);
    expect(lines.find((l) => l.line)?.line).toBe('this is not an error record');

    const contents = left.map((f) => readFileSync(join(stack.dataDir, f), 'utf8'));
    const second = await redrive();
    expect(second.code, second.out).toBe(1);
    expect(second.out).toMatch(/left as they were/);
    expect(left.map((f) => readFileSync(join(stack.dataDir, f), 'utf8'))).toEqual(contents);
    expect(await listed('orphan')).toEqual([]);
  });

  it('refuses a half-given stack and says which outputs go together (exit code 2)', async () => {
    const out = await promisify(execFile)('npm', ['run', '-s', 'redrive', '--', '--bucket', 'b'], { cwd: ROOT }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((out as { code: number }).code).toBe(2);
    expect((out as { stderr: string }).stderr).toContain('--bucket, --events-stream and --identities-stream go together');
  });
});

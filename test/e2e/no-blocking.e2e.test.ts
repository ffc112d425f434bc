/**
 * No request blocks the local server (docs/development.md "No request blocks the server"): the worst
 * trends, funnel, retention and plan requests the API accepts run together, twice over, while
 * ingestion goes on. Every ingestion batch is answered 2xx, none waits anywhere near a timeout, and
 * each heavy request answers (200, 202 while its query runs on, or a 4xx), never a 5xx or a hang.
 * How much slower ingestion gets meanwhile is a figure, not a pass mark on a shared 2-core machine:
 * `npm run bench:blocking` prints it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heavyEvents, heavyRequests, ingestWhile, timedIngest, writeRawEvents } from '../helpers/heavy-requests';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');
/** Far above any answer on a busy machine, far below a hang. */
const INGEST_ANSWER_MS = 10_000;

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('heavy');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  const events = heavyEvents(NOW, 3000);
  for (let i = 0; i < events.length; i += 1000) {
    const res = await stack.post('/v1/events', key, { events: events.slice(i, i + 1000) });
    expect(res.status, res.text).toBe(204);
  }
  // And a year of 200,000 more, written as Firehose would have delivered them.
  writeRawEvents(stack.eventsDir, stack.rawEvents(project)[0]!, 200_000, NOW);
  // Writing them held this thread for seconds, past the server's keep-alive timeout: let the idle
  // connections close before the next request, or fetch may send it on one being closed (ECONNRESET).
  await new Promise((resolve) => setTimeout(resolve, 500));
}, 120_000);
afterAll(() => stack.stop());

describe('the heaviest accepted requests beside ingestion', () => {
  it('leave every ingestion batch answered 2xx in time, and each answers without a 5xx', async () => {
    expect((await timedIngest(stack, key, -1, NOW)).status).toBe(204);
    const requests = [...heavyRequests(project, NOW), ...heavyRequests(project, NOW)];
    let done = false;
    const ingesting = ingestWhile(stack, key, NOW, () => done);
    const answers = await Promise.all(
      requests.map(async (r) => {
        const res = await stack.admin('POST', r.path, r.body);
        return { label: r.label, status: res.status, error: res.body?.error as string | undefined, body: res.body };
      }),
    ).finally(() => (done = true));
    const ingested = await ingesting;

    for (const a of answers) expect([200, 202, 422], `${a.label}: ${a.status} ${a.error ?? ''}`).toContain(a.status);
    // Each kind really ran: the insights and the override plan answer 200.
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(requests.length - 2);
    // The heavy requests read the year's events written straight into landing, not only the ones sent
    // (750 users): the year-long trend (polled to its end if it was still running) counts their users.
    const year = answers.find((a) => a.label.startsWith('trends: by day over 366 days'))!;
    let result = year.body;
    for (let i = 0; i < 120 && result?.status !== 'succeeded'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      result = (await stack.admin('GET', `/admin/v1/projects/${project}/insights/queries/${year.body.query_id}`)).body;
    }
    const users = (result?.result?.lines ?? []).filter((l: any) => l.measure === 'users').map((l: any) => l.total as number);
    expect(Math.max(0, ...users), JSON.stringify(result?.status)).toBeGreaterThan(5_000);
    expect(ingested.length).toBeGreaterThan(0);
    expect(ingested.filter((a) => a.status !== 204)).toEqual([]);
    expect(Math.max(...ingested.map((a) => a.ms))).toBeLessThan(INGEST_ANSWER_MS);
  }, 180_000);
});

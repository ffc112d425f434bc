/**
 * The local insights' watermark (docs/decisions/insights.md, "Cache"): a trend run right after a batch
 * was stored counts it, even within the same second, and a batch stored after a query counts in the
 * next query of that second (the cache never answers with the earlier count). Before, the local
 * watermark was the request's second rounded down: a trend run less than a second after its events
 * were stored showed 0 (`npm run demo`'s saved "Daily shoppers" did, once in a while).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

// The server's clock, moved by the test within one second.
const SECOND = Date.parse('2026-04-15T12:00:00.000Z');
let now = SECOND;
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => now });
  project = await stack.createProject('fresh events');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
});
afterAll(() => stack?.stop());

const signups = (users: string[]) => ({ events: users.map((user_id) => ({ name: 'signup', user_id, timestamp: '2026-04-14T10:00:00Z' })) });
const definition = { series: [{ event: 'signup' }], date_from: '2026-04-08', date_to: '2026-04-14', compare: false };

it('counts the events stored just before a trend, within the same second, and a batch stored after it in the next run', async () => {
  now = SECOND + 400;
  expect((await stack.post('/v1/events', key, signups(['a', 'b', 'c']))).status).toBe(204);

  now = SECOND + 700;
  const first = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, definition);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body.result.lines[0].total).toBe(3);
  expect(first.body.data_through).toBe('2026-04-15T12:00:00.700Z');

  // Two more, still in that second: the same definition runs again and counts them.
  now = SECOND + 800;
  expect((await stack.post('/v1/events', key, signups(['d', 'e']))).status).toBe(204);
  now = SECOND + 900;
  const second = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, definition);
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  expect(second.body.result.lines[0].total).toBe(5);
  expect(second.body).toMatchObject({ cached: false, data_through: '2026-04-15T12:00:00.900Z' });

  // Asked again at the same instant: the query already run answers (the cache), with the same count.
  const again = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, definition);
  expect(again.body).toMatchObject({ cached: true, query_id: second.body.query_id });
  expect(again.body.result.lines[0].total).toBe(5);
});

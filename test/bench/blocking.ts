/**
 * npm run bench:blocking — a benchmark, not a test: how much slower ingestion answers while the
 * heaviest requests the admin API accepts run (docs/development.md, "No request blocks the local
 * server"; test/e2e/no-blocking.e2e.test.ts checks the behaviour).
 *
 * Starts the local stack in this process on a temp data directory, with BENCH_EVENTS (default
 * 200,000) raw events of one project over the year before its clock. Then times BENCH_BATCHES
 * (default 60) ingestion batches of 5 events, one after another 20 ms apart: first idle, then while
 * the heavy requests of test/helpers/heavy-requests.ts (the widest trends, funnel and retention, and
 * plans at the corners of their bounds) run BENCH_ROUNDS (default 2) times over, all at once. Prints
 * the median and 95th percentile of each and their ratios.
 */
import '../../bin/node-version';
import { heavyEvents, heavyRequests, ingestWhile, median, percentile, timedIngest, writeRawEvents } from '../helpers/heavy-requests';
import { startTestStack, UNTHROTTLED_KEY } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function main() {
  process.env.TALLY_LOG_LEVEL ??= 'error';
  const stack = await startTestStack({ clock: () => NOW });
  try {
    const project = await stack.createProject('blocking-bench');
    const key = await stack.createKey(project, UNTHROTTLED_KEY);
    const seeded = await stack.post('/v1/events', key, { events: heavyEvents(NOW, 1000) });
    if (seeded.status !== 204) throw new Error(`seeding answered ${seeded.status}: ${seeded.text}`);
    writeRawEvents(stack.eventsDir, stack.rawEvents(project)[0]!, EVENTS, NOW);
    await new Promise((resolve) => setTimeout(resolve, 500)); // idle keep-alive connections close

    const idle: number[] = [];
    for (let n = 0; n < BATCHES; n++) {
      const answer = await timedIngest(stack, key, n, NOW);
      if (answer.status !== 204) throw new Error(`idle ingestion answered ${answer.status}`);
      idle.push(answer.ms);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const requests = Array.from({ length: ROUNDS }, () => heavyRequests(project, NOW)).flat();
    let done = false;
    const started = performance.now();
    const ingesting = ingestWhile(stack, key, NOW, () => done);
    const statuses = await Promise.all(requests.map(async (r) => (await stack.admin('POST', r.path, r.body)).status)).finally(() => (done = true));
    const heavyMs = performance.now() - started;
    const loaded = (await ingesting).map((a) => {
      if (a.status !== 204) throw new Error(`ingestion under load answered ${a.status}`);
      return a.ms;
    });

    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    console.log(`${EVENTS.toLocaleString('en')} raw events; ${requests.length} heavy requests answered ${[...new Set(statuses)].join('/')} in ${fmt(heavyMs)}`);
    console.log(`ingestion idle:   ${idle.length} batches, median ${fmt(median(idle))}, p95 ${fmt(percentile(idle, 0.95))}`);
    console.log(`ingestion loaded: ${loaded.length} batches, median ${fmt(median(loaded))}, p95 ${fmt(percentile(loaded, 0.95))}`);
    console.log(
      `ratio loaded/idle: median ${(median(loaded) / median(idle)).toFixed(2)}×, p95 ${(percentile(loaded, 0.95) / percentile(idle, 0.95)).toFixed(2)}×`,
    );
  } finally {
    await stack.stop();
  }
}

void main();

/**
 * npm run bench:crash — the crash drill of issue 19 at full size; exits non-zero if an event is lost
 * or shown twice.
 *
 * CRASH_EVENTS (default 20,000) unique events in 20-event batches over CRASH_CONNECTIONS (10)
 * connections to `npm start` run as a child process; CRASH_KILLS (5) times, once
 * CRASH_KILL_AFTER_BATCHES ("50-150": uniformly at random in that range) batches were acknowledged
 * since the previous start, the server is killed with SIGKILL and started again on the same data
 * directory; the clients resend every batch that was not acknowledged. The server's TALLY_CLAIM_LEASE_SECONDS is CRASH_LEASE_SECONDS (default 30,
 * the default lease). Then it counts, over the admin events listing (one listing per event name),
 * the sent events not listed (lost) and the rows listed twice, the raw file lines that repeat a
 * deduplication key (the copies the readers drop), the user listing of each user with a copy, and
 * the results of the experiment every event enrolls its user in. CRASH_SEED changes the random moments.
 */
import '../../bin/node-version';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCrashRun, runCrashLoad } from '../helpers/crash-load';
import { readRawEvents } from '../helpers/local';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const [killMin, killMax] = env('CRASH_KILL_AFTER_BATCHES', '50-150').split('-').map(Number) as [number, number];

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-crash-bench-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const options = {
    dataDir,
    env: { TALLY_CLAIM_LEASE_SECONDS: env('CRASH_LEASE_SECONDS', '30') },
    events: Number(env('CRASH_EVENTS', '20000')),
    batchSize: 20,
    connections: Number(env('CRASH_CONNECTIONS', '10')),
    kills: Number(env('CRASH_KILLS', '5')),
    killAfterBatches: [killMin, killMax] as [number, number],
    seed: Number(env('CRASH_SEED', '19')),
    progress: (line: string) => console.log(line),
  };
  console.log(
    `crash drill: ${options.events} events, batches of ${options.batchSize}, ${options.connections} connections, ${options.kills} SIGKILLs, each after ${killMin}-${killMax} batches, lease ${options.env.TALLY_CLAIM_LEASE_SECONDS} s`,
  );
  const run = await runCrashLoad(options);
  try {
    const check = await checkCrashRun(run, readRawEvents(join(dataDir, 'landing', 'events'), run.projectId));
    console.log(
      `  ${run.seconds.toFixed(1)} s, ${run.kills} kills, ${run.requests} requests (${run.resends} resent), statuses ${JSON.stringify(run.statuses)}`,
    );
    console.log(`  lost (sent, not listed):         ${check.lost}`);
    console.log(`  copies in the events listing:    ${check.listedCopies}`);
    console.log(`  copies in the raw files:         ${check.rawCopies}  (the same event stored twice; every reader counts it once)`);
    const userListings = check.usersWithCopies.filter((u) => u.listed !== 1).length;
    console.log(`  users with a copy listed twice:  ${userListings} of ${check.usersWithCopies.length} (user_id listing, the Users page)`);
    const resultsOk = JSON.stringify(check.results.enrolled) === JSON.stringify(check.results.expected) && check.results.multipleExposures === 0;
    console.log(
      `  results: enrolled ${JSON.stringify(check.results.enrolled)} (expected ${JSON.stringify(check.results.expected)}), multiple exposures ${check.results.multipleExposures}`,
    );
    process.exitCode = check.lost === 0 && check.listedCopies === 0 && userListings === 0 && resultsOk ? 0 : 1;
  } finally {
    run.server.child.kill('SIGTERM');
    await run.server.exited;
    cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

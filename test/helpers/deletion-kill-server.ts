/**
 * The local server as `npm start` runs it (the same startLocalServer on an on-disk data directory, its
 * settings read by readStartConfig from the same variables), plus a test-only hook: it SIGKILLs itself
 * while a person's deletion runs, so a drill can stop it at a chosen point (test/e2e/erasure-sigkill.e2e.test.ts).
 * Only tests start this file; `npm start` (bin/start.ts) reads none of the variables below.
 *
 * - DRILL_SIGKILL_USER: the user ID of the deletion to kill in (others run undisturbed);
 * - DRILL_SIGKILL_AT: `<step>` kills the process as that step begins (its `began` already saved);
 *   `<step>+<ms>` kills it that many milliseconds after the step began, whatever runs then (the step's
 *   own work, a later step, or nothing);
 * - DRILL_COMPACTION_INTERVAL_MS: the compaction job's interval (npm start: 60 s), so a deletion is
 *   taken up at once;
 * - DRILL_SIGKILL_LOG: a file the kill appends a line to first: the step the deletion was in (the last
 *   one begun), so the drill knows where each kill landed.
 *
 * It prints the lines test/helpers/crash-load.ts startServerChild waits for.
 */
import { appendFileSync } from 'node:fs';
import { DELETION_STEPS, type DeletionStep } from '../../lambdas/domain/deletion';
import { startLocalServer } from '../../lambdas/local/server';
import { readStartConfig } from '../../lambdas/local/start-config';

const read = readStartConfig(process.env);
if (!read.ok) throw new Error(read.problems.join('; '));
const config = read.config;

const [step, delay] = (process.env.DRILL_SIGKILL_AT ?? '').split('+') as [string, string | undefined];
if (step !== '' && !DELETION_STEPS.includes(step as DeletionStep)) throw new Error(`DRILL_SIGKILL_AT: no step "${step}" (${DELETION_STEPS.join(', ')})`);
const user = process.env.DRILL_SIGKILL_USER;
let current: DeletionStep | undefined;
const kill = () => {
  if (process.env.DRILL_SIGKILL_LOG) appendFileSync(process.env.DRILL_SIGKILL_LOG, `${current ?? 'none'}\n`);
  process.kill(process.pid, 'SIGKILL');
};

const server = await startLocalServer({
  port: config.port,
  host: config.host,
  dataDir: config.dataDir,
  adminToken: config.adminToken!,
  resultsIntervalMs: config.resultsIntervalSeconds * 1000,
  compactionIntervalMs: Number(process.env.DRILL_COMPACTION_INTERVAL_MS ?? 60_000),
  claimLeaseMs: config.claimLeaseSeconds * 1000,
  deletionStepHook: (deletion, at) => {
    if (deletion.user_id !== user) return;
    current = at;
    if (at !== step) return;
    if (delay === undefined) kill();
    else setTimeout(kill, Number(delay));
  },
});
console.log(`Tally is running at ${server.url}`);
console.log('Press Ctrl+C to stop.');

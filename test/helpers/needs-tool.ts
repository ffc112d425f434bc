/**
 * Tests that need a program from the machine (Debian's Chromium, Debian's jq 1.6): without it they are
 * skipped with one line saying how to install it, except under CI=true, where a missing program is a
 * failure: CI must run them (.ci/run installs both).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { describe, it } from 'vitest';

export interface NeededTool {
  /** Names the tool in the marker file of the once-per-run notice ("browser", "jq"). */
  id: string;
  /** Whether the tool is there; undefined or a reason when it is not. */
  missing(): string | undefined;
  /** The one line printed when tests are skipped for want of it. */
  notice: string;
  /** How to install it, for CI's failure. */
  install: string;
}

/**
 * The skip notice is printed once per test run, not once per test file: vitest imports this module
 * afresh in each worker, so a marker file named after the run's main process records it.
 */
function printSkipNoticeOnce(tool: NeededTool): void {
  const runPid = isMainThread ? process.ppid : process.pid;
  try {
    writeFileSync(join(tmpdir(), `tally-${tool.id}-skip-notice-${runPid}`), '', { flag: 'wx' });
  } catch {
    return; // already printed in this run
  }
  console.warn(tool.notice);
}

/** `describe` when the tool is there; under CI=true, a describe whose single test fails saying it is missing; elsewhere describe.skip with the notice printed once. */
export function describeWithTool(tool: NeededTool, name: string, fn: () => void): void {
  const missing = tool.missing();
  if (missing === undefined) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${tool.id}`, () => {
        throw new Error(`${missing}; CI must run these tests. ${tool.install}`);
      });
    });
    return;
  }
  printSkipNoticeOnce(tool);
  describe.skip(name, fn);
}

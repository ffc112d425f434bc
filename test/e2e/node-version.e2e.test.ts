/**
 * `npm start` on Node 20 prints Tally's banner first, not the AWS SDK's NodeVersionSupportWarning
 * (bin/node-version.ts); other warnings still print. Runs without the variable vitest.config.ts sets,
 * as a user's shell would.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-node-version-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts bin/start.ts, waits for the banner's last line, stops it, and returns everything it printed. */
function startOutput(): Promise<string> {
  const env: Record<string, string | undefined> = { ...process.env, PORT: '0', TALLY_DATA_DIR: dataDir, TALLY_LOG_LEVEL: 'warn' };
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './lambdas/local/sql-text/register.mjs', 'bin/start.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      if (out.includes('Press Ctrl+C')) child.kill('SIGINT');
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

describe('npm start on any supported Node version', () => {
  it("prints Tally's banner first, without the AWS SDK's Node version notice", async () => {
    const out = await startOutput();
    expect(out.split('\n')[0]).toMatch(/^Tally is running at http:\/\//);
    expect(out).not.toContain('NodeVersionSupportWarning');
  });

  it('still prints every other warning', () => {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const script =
      "await import('./bin/node-version.ts'); process.emitWarning('another warning'); await import('@aws-sdk/client-firehose').then((m) => new m.FirehoseClient({ region: 'eu-west-1' }));";
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { env, encoding: 'utf8' });
    expect(run.stderr).toContain('Warning: another warning');
    expect(run.stderr).not.toContain('NodeVersionSupportWarning');
  });
});

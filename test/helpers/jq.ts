/**
 * jq 1.6, the engine Firehose runs a MetadataExtractionQuery with (JsonParsingEngine JQ-1.6): Debian's
 * `jq` package (Debian 12 ships 1.6), at $TALLY_JQ or /usr/bin/jq, checked with `jq --version`. Not an
 * npm build: node-jq downloads a binary at install time (which fails here), and the WebAssembly ports
 * (jq-web 0.6.2, jq-wasm 1.0.1) do not say which jq they build, so they could not vouch for 1.6.
 * .ci/run installs the package when it is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describeWithTool, type NeededTool } from './needs-tool';

export const JQ_VERSION = 'jq-1.6';

export function jqPath(): string {
  return process.env.TALLY_JQ ?? '/usr/bin/jq';
}

function jqMissing(): string | undefined {
  const path = jqPath();
  if (!existsSync(path)) return `jq is missing (${path} does not exist)`;
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  return version === JQ_VERSION ? undefined : `${path} is ${version}, not ${JQ_VERSION} (the engine Firehose names)`;
}

const JQ: NeededTool = {
  id: 'jq',
  missing: jqMissing,
  notice: 'jq tests skipped: no jq 1.6 found. Install it with `apt-get install jq` on Debian 12 (or set TALLY_JQ)',
  install: 'Install it with `apt-get install -y jq` (.ci/run does) or set TALLY_JQ to a jq 1.6.',
};

export const describeJq = (name: string, fn: () => void): void => describeWithTool(JQ, name, fn);

/** Runs `jq -c <program>` over input (a stream of JSON texts); one compact JSON text per output. Throws with jq's message on a compile or run error. */
export function runJq(program: string, input: string | Buffer): unknown[] {
  const run = spawnSync(jqPath(), ['-c', program], { input, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`jq exited ${run.status}: ${run.stderr.trim()}`);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * The one test that bundles for real (local esbuild, no Docker): every function's asset exists, is a
 * CommonJS bundle with its source map, carries the AWS SDK it uses (the version package-lock.json
 * pins, nothing left to the runtime's copy), and stays small enough for a fast cold start. One
 * synthesis for all functions; the other stack tests skip bundling.
 */
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_MANIFEST_FILE, type SdkManifest } from '../../lambdas/contract/dashboard';
import { JOBS, ROUTES } from '../../lambdas/routes';
import { sdkDistribution, sriHash } from '../../sdk/scripts/distribution';
import { TallyStack } from '../../lib/tally-stack';
import { mergedTemplate, testApp } from './synth';

/**
 * Generous ceiling: the bundles measure 360-780 KB minified, most of it the AWS SDK (npm run build prints
 * the figures); the largest, admin-results-refresh, carries the results SQL with its comments (shown to
 * analysts as written), which the numeric rule, breakdown kinds, one-pass identity resolution and the
 * events view's parts (curated_events, events_tail: insights read them separately) grew. The
 * listings (admin-events-list, 872 KB, the largest since) carry the S3 client too: they delete their
 * queries' result files, which name people, once read (docs/decisions/erasure.md).
 */
const MAX_BUNDLE_BYTES = 900 * 1024;
/**
 * The scheduled jobs answer no request, so their cold start (once per schedule tick at most) is no
 * one's wait. The compaction job is the largest (about 890 KB): the Athena, Glue (the retention cut's
 * partitions, 275 KB of it), S3 and DynamoDB clients, since people's deletions and exports run in it.
 */
const MAX_JOB_BUNDLE_BYTES = 1024 * 1024;
const JOB_NAMES: readonly string[] = JOBS.map((j) => j.name);
/**
 * The ingestion functions: they take every event and scale out the most, so their cold start counts
 * (docs/decisions/ingestion-cold-start.md), whose goal is 450 KB. 425 KB when measured there, the SDK's DynamoDB and
 * Firehose clients included; 437 KiB since the stores only the admin routes and jobs use are wired by their entries
 * (lambdas/entry/admin-stores.ts: 454 KiB when every store class was in every bundle).
 */
const MAX_INGEST_BUNDLE_BYTES = 450 * 1024;
const INGEST_FUNCTIONS = ['ingest-v1', 'ingest-api'];
/** A require() call of an @aws-sdk package (not the text of one inside an SDK error message, which starts with "["). */
const SDK_REQUIRE = /(?<![[\w.$])require\("@aws-sdk\/[^"]+"\)/g;
const versionOf = (pkg: string) => (createRequire(import.meta.url)(`${pkg}/package.json`) as { version: string }).version;

const outdir = mkdtempSync(join(tmpdir(), 'tally-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('bundles', () => {
  // About 40 s on two free cores; 144 s with two other processes keeping both busy: a generous bound.
  it('bundles every function with local esbuild', { timeout: 600_000 }, () => {
    const app = testApp({ bundle: true, outdir });
    const stack = new TallyStack(app, 'Tally');
    const template = mergedTemplate(stack);
    const functions = [
      ...ROUTES.map((r) => ({ name: r.name, fn: stack.functions[r.name].fn })),
      ...JOBS.map(({ name }) => ({ name, fn: stack.jobs[name].fn })),
      { name: 'authorizer', fn: stack.authorizer.fn },
    ];
    const sizes: Record<string, number> = {};
    const bundleDirs: Record<string, string> = {};
    for (const { name, fn } of functions) {
      const props = template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties;
      const hash = String(props.Code.S3Key).replace(/\.zip$/, '');
      const dir = join(outdir, `asset.${hash}`);
      bundleDirs[name] = `asset.${hash}`;
      const bundle = join(dir, 'index.js');
      expect(existsSync(bundle), `${name}: ${bundle}`).toBe(true);
      expect(existsSync(`${bundle}.map`), `${name}: source map`).toBe(true);
      const code = readFileSync(bundle, 'utf8');
      sizes[name] = statSync(bundle).size;
      expect(sizes[name], name).toBeLessThan(JOB_NAMES.includes(name) ? MAX_JOB_BUNDLE_BYTES : MAX_BUNDLE_BYTES);
      expect(sizes[name], name).toBeGreaterThan(1024);
      // CommonJS with the handler export; every @aws-sdk package bundled, none required from the runtime.
      expect(code, name).toMatch(/module\.exports/);
      expect(code.match(SDK_REQUIRE) ?? [], name).toEqual([]);
      // The SDK's DynamoDB client (its service target) at the version package-lock.json pins (its user agent carries it).
      expect(code, name).toMatch(/DynamoDB_20120810/);
      expect(code, name).toContain(`"${versionOf('@aws-sdk/client-dynamodb')}"`);
      // Minified: almost no indented statement lines. The newlines left are inside template literals:
      // SQL texts (indented SQL, not JavaScript) and zod's code generation (a dozen such lines); an
      // unminified bundle has over a thousand.
      const indentedStatements = code.match(/^[ \t]+(?:const|let|var|function|return|if|for|await)\b[^\n]*[;{]$/gm) ?? [];
      expect(indentedStatements.length, `${name} is minified`).toBeLessThan(50);
    }
    expect(Object.keys(sizes)).toHaveLength(functions.length);
    for (const name of INGEST_FUNCTIONS) expect(sizes[name], name).toBeLessThan(MAX_INGEST_BUNDLE_BYTES);
    for (const name of INGEST_FUNCTIONS) {
      const code = readFileSync(join(outdir, bundleDirs[name]!, 'index.js'), 'utf8');
      // The SDK's Firehose client, and lib-dynamodb's marshalling (util-dynamodb's error for a class instance, which the stores never meet).
      expect(code, name).toMatch(/Firehose_20150804/);
      expect(code, name).toContain(`"${versionOf('@aws-sdk/client-firehose')}"`);
      expect(code, name).toMatch(/convertClassInstanceToMap/);
    }
  });

  it("builds the SDK's files into the dashboard's assets during the same synthesis: the manifest, the script with its hash, the package", () => {
    const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.') && existsSync(join(outdir, d, SDK_MANIFEST_FILE)));
    expect(assets).toHaveLength(1);
    const dir = join(outdir, assets[0]!);
    const manifest = JSON.parse(readFileSync(join(dir, SDK_MANIFEST_FILE), 'utf8')) as SdkManifest;
    expect(sriHash(readFileSync(join(dir, manifest.script)))).toBe(manifest.integrity);
    // The same bytes as npm start serves from sdk/dist (npm test builds it first): one version, one hash.
    expect(manifest).toEqual(sdkDistribution().manifest);
    expect(
      gunzipSync(readFileSync(join(dir, manifest.package)))
        .subarray(0, 100)
        .toString('utf8'),
    ).toMatch(/^package\//);
  });
});

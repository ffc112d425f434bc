/**
 * The one test that bundles for real (local esbuild, no Docker): every function's asset exists, is a
 * CommonJS bundle with its source map, keeps the SDK's clients external and bundles @aws-sdk/util-dynamodb, reaches DynamoDB and Firehose through
 * lambdas/aws-client rather than the SDK's clients, and stays small enough for a fast cold start. One synthesis for all functions; the other stack tests skip bundling.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_MANIFEST_FILE, type SdkManifest } from '../../lambdas/contract/dashboard';
import { JOBS, ROUTES } from '../../lambdas/routes';
import { sdkDistribution, sriHash } from '../../sdk/scripts/distribution';
import { TallyStack } from '../../lib/tally-stack';
import { testApp } from './synth';

/** Generous ceiling: the bundles measure 9-150 KB minified (npm run build prints the figures). */
const MAX_BUNDLE_BYTES = 400 * 1024;
/**
 * The ingestion functions (issue 12): they take every event and scale out the most, so their cold
 * start counts. About 70 KB since validation stopped bundling zod (it was 156 KB).
 */
const MAX_INGEST_BUNDLE_BYTES = 100 * 1024;
const INGEST_FUNCTIONS = ['ingest-v1', 'ingest-api'];

const outdir = mkdtempSync(join(tmpdir(), 'tally-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('bundles', () => {
  it('bundles every function with local esbuild', { timeout: 120_000 }, () => {
    const app = testApp({ bundle: true, outdir });
    const stack = new TallyStack(app, 'Tally');
    const template = Template.fromStack(stack);
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
      expect(sizes[name], name).toBeLessThan(MAX_BUNDLE_BYTES);
      expect(sizes[name], name).toBeGreaterThan(1024);
      // CommonJS with the handler export, the SDK's clients left to the runtime; util-dynamodb bundled
      // (every store's marshalling, at the version package-lock.json pins, not the runtime's).
      expect(code, name).toMatch(/module\.exports/);
      expect(code, name).not.toMatch(/require\("@aws-sdk\/util-dynamodb"\)/);
      expect(code, name).not.toMatch(/class DynamoDBClient\b/);
      // DynamoDB and Firehose through lambdas/aws-client: the SDK's clients for them cost the ingestion
      // functions about 80 ms of cold start (docs/decisions/ingestion-cold-start.md).
      expect(code, name).not.toMatch(/require\("@aws-sdk\/(client-dynamodb|lib-dynamodb|client-firehose)"\)/);
      expect(code, name).toMatch(/DynamoDB_20120810/);
      // Minified: almost no indented statement lines. The newlines left are inside template literals:
      // SQL texts (indented SQL, not JavaScript) and zod's code generation (a dozen such lines); an
      // unminified bundle has over a thousand.
      const indentedStatements = code.match(/^[ \t]+(?:const|let|var|function|return|if|for|await)\b[^\n]*[;{]$/gm) ?? [];
      expect(indentedStatements.length, `${name} is minified`).toBeLessThan(50);
    }
    expect(Object.keys(sizes)).toHaveLength(functions.length);
    for (const name of INGEST_FUNCTIONS) expect(sizes[name], name).toBeLessThan(MAX_INGEST_BUNDLE_BYTES);
    // The ingestion functions require no @aws-sdk package at all: nothing of their cold load or behaviour is the runtime's SDK.
    for (const name of INGEST_FUNCTIONS) {
      const code = readFileSync(join(outdir, bundleDirs[name]!, 'index.js'), 'utf8');
      expect(code.match(/require\("@aws-sdk\/[^"]+"\)/g) ?? [], name).toEqual([]);
      // util-dynamodb's marshalling is in the bundle (its error for a class instance, which the stores rely on never meeting).
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

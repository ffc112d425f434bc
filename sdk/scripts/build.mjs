// Builds dist/: ESM and CJS for bundlers and Node, and the script-tag build tally.min.js (global `Tally`).
// Type declarations come from `tsc -p tsconfig.build.json` (npm run build runs both).
// `--outdir <dir>` builds into another directory instead (the CDK app's asset bundling, which must
// not rewrite sdk/dist under tests reading it).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--outdir');
const outdir = at > 0 ? process.argv[at + 1] : join(root, 'dist');
const common = {
  entryPoints: [join(root, 'src/index.ts')],
  bundle: true,
  // node:zlib is imported only when running in Node (src/gzip.ts); it is never bundled.
  external: ['node:zlib'],
  target: ['es2022'],
  legalComments: 'none',
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, format: 'esm', platform: 'neutral', outfile: join(outdir, 'index.mjs') }),
  build({ ...common, format: 'cjs', platform: 'node', outfile: join(outdir, 'index.cjs') }),
  build({
    ...common,
    format: 'iife',
    platform: 'browser',
    globalName: 'Tally',
    minify: true,
    // A script tag runs in a browser: the Node branches (zlib, process) drop out of this build.
    define: { 'globalThis.process': 'undefined' },
    // Shortens property names used only inside the bundle (the 8 KB budget): between the SDK's own
    // modules, and inside @noble/hashes' SHA-256 (its hash objects never leave the bundle). None of
    // them is an option, a method of the client or a field on the wire; the browser test's bucketing
    // against the server's checks the hash still computes the same.
    mangleProps:
      /^(flushOnHide|queued|getJson|loaded|writable|peek|kind|indexes|retryAfter|batchSize|intervalMs|paused|platformVersion|fixed|mode|store|transport|log|queue|first|variant|outcome|summary|blockLen|outputLen|padOffset|isLE|canXOF|roundClean|digestInto|_cloneIntoMeta|_cloneInto|destroyed|finished)$/,
    outfile: join(outdir, 'tally.min.js'),
  }),
]);

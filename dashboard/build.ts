/**
 * Builds the dashboard into `outDir`: hashed JavaScript and CSS bundles (so CloudFront and browsers
 * may cache them forever) and an index.html that loads them (no inline script, see the CSP in
 * lambdas/contract/dashboard.ts). Synchronous because the CDK app calls it from an asset's local
 * bundling (lib/dashboard.ts), and npm start and the tests call it too.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const DASHBOARD_DIR = dirname(fileURLToPath(import.meta.url));

export interface DashboardFile {
  /** Relative to outDir, e.g. "assets/main-3F2A1B.js". */
  path: string;
  bytes: number;
  gzipBytes: number;
}

export function buildDashboardSync(outDir: string): { files: DashboardFile[] } {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = buildSync({
    entryPoints: [join(DASHBOARD_DIR, 'src/main.tsx')],
    outdir: join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const script = outputs.find((f) => f.endsWith('.js'));
  const styles = outputs.filter((f) => f.endsWith('.css'));
  if (!script) throw new Error('dashboard build produced no JavaScript');
  const template = readFileSync(join(DASHBOARD_DIR, 'index.html'), 'utf8');
  const html = template
    .replace('<!--styles-->', styles.map((f) => `<link rel="stylesheet" href="assets/${f}">`).join('\n    '))
    .replace('<!--script-->', `<script type="module" src="assets/${script}"></script>`);
  writeFileSync(join(outDir, 'index.html'), html);
  const files = ['index.html', ...outputs.map((f) => `assets/${f}`)].map((path) => {
    const body = readFileSync(join(outDir, path));
    return { path, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length };
  });
  return { files };
}

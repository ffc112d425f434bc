/**
 * What a deployment serves of the SDK, so an app installs it from the deployment itself with nothing
 * published anywhere (docs/decisions/sdk-from-the-deployment.md):
 *
 * - sdk/<version>/tally.min.js: the script-tag build, at a path that names its version, with its
 *   Subresource Integrity hash (sha384) in the manifest, for `<script integrity=…>`;
 * - sdk/<version>/tally-sdk-<version>.tgz: the npm package of the same version, packed as `npm pack`
 *   packs it (package.json, README.md, LICENSE and package.json's `files`, under `package/`), so
 *   `npm install <url>` works; the package has no dependencies, so nothing else is fetched;
 * - sdk/manifest.json: the version, both paths and the hash (lambdas/contract/dashboard.ts SdkManifest),
 *   which the dashboard's Install page reads to fill in its snippets.
 *
 * The tarball is deterministic (sorted entries, fixed times and modes, no owner names), so the same
 * build gives the same bytes and the same integrity npm records in a lockfile. npm start serves these
 * files (lambdas/local/sdk-files.ts); on AWS the dashboard's distribution does (lib/dashboard.ts).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { SDK_MANIFEST_FILE, type SdkManifest } from '../../lambdas/contract/dashboard';

export const SDK_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** npm's own fixed time for every entry of a packed tarball (pacote), so packing twice gives the same bytes. */
const PACK_TIME = Date.parse('1985-10-26T08:15:00.000Z') / 1000;

export interface SdkFile {
  /** Relative to the site's root, without a leading "/": "sdk/0.1.0/tally.min.js". */
  path: string;
  body: Buffer;
  contentType: string;
}

export interface SdkDistribution {
  manifest: SdkManifest;
  files: SdkFile[];
}

export const sriHash = (body: Buffer, algorithm: 'sha384' | 'sha512' = 'sha384') => `${algorithm}-${createHash(algorithm).update(body).digest('base64')}`;

/**
 * Builds what `npm run build -w @tally/sdk` builds into sdk/dist (type declarations, then the
 * bundles), into `distDir` instead, synchronously: the CDK app's asset bundling.
 */
export function buildSdkSync(distDir: string): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(SDK_DIR, 'tsconfig.build.json'), '--declarationDir', join(distDir, 'types')], {
    cwd: SDK_DIR,
    stdio: 'pipe',
  });
  execFileSync(process.execPath, [join(SDK_DIR, 'scripts/build.mjs'), '--outdir', distDir], { cwd: SDK_DIR, stdio: 'pipe' });
}

/** The files under `dir`, relative to `root`, with "/" separators. */
function walk(root: string, dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(root, path) : [relative(root, path).split(sep).join('/')];
  });
}

/**
 * What `npm pack` puts in the package, each with where it is read from: package.json, README, LICENSE
 * and every file under the `files` entries, sorted (`dist` read from distDir).
 */
export function packageFiles(distDir: string): Array<{ path: string; from: string }> {
  const pkg = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { files?: string[] };
  const from = (path: string) => (path === 'dist' || path.startsWith('dist/') ? join(distDir, path.slice('dist'.length)) : join(SDK_DIR, path));
  const listed = (pkg.files ?? []).flatMap((entry) => {
    const path = from(entry);
    if (!existsSync(path)) return [];
    return statSync(path).isDirectory() ? walk(path, path).map((p) => `${entry}/${p}`) : [entry];
  });
  return [...new Set(['package.json', ...listed])].sort().map((path) => ({ path, from: from(path) }));
}

/** The SDK as this deployment serves it, from a build in distDir (sdk/dist by default); fails, saying how to build it, when it is missing. */
export function sdkDistribution(distDir = join(SDK_DIR, 'dist')): SdkDistribution {
  const script = join(distDir, 'tally.min.js');
  if (!existsSync(script) || !existsSync(join(distDir, 'types'))) {
    throw new Error('The SDK is not built: run `npm run build -w @tally/sdk` (npm start does it first).');
  }
  const { version } = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { version: string };
  const scriptBody = readFileSync(script);
  const tarball = packTarball(packageFiles(distDir).map(({ path, from }) => ({ path: `package/${path}`, body: readFileSync(from) })));
  const manifest: SdkManifest = {
    version,
    script: `sdk/${version}/tally.min.js`,
    integrity: sriHash(scriptBody),
    package: `sdk/${version}/tally-sdk-${version}.tgz`,
  };
  return {
    manifest,
    files: [
      { path: manifest.script, body: scriptBody, contentType: 'text/javascript; charset=utf-8' },
      { path: manifest.package, body: tarball, contentType: 'application/gzip' },
      { path: SDK_MANIFEST_FILE, body: Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), contentType: 'application/json' },
    ],
  };
}

/** Writes the distribution's files under outDir (the CDK asset). */
export function writeSdkDistribution(outDir: string, distribution = sdkDistribution()): void {
  for (const file of distribution.files) {
    mkdirSync(dirname(join(outDir, file.path)), { recursive: true });
    writeFileSync(join(outDir, file.path), file.body);
  }
}

/** A gzipped ustar archive of regular files (mode 0644, the fixed time, no owner), in the order given. */
export function packTarball(entries: Array<{ path: string; body: Buffer }>): Buffer {
  const blocks: Buffer[] = [];
  for (const { path, body } of entries) {
    blocks.push(tarHeader(path, body.length));
    blocks.push(body);
    const pad = (512 - (body.length % 512)) % 512;
    if (pad) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(1024)); // two empty blocks end the archive
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

function tarHeader(path: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  // Names up to 100 bytes go in `name`; longer ones are split at a "/" into `prefix` (155) and `name`.
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(path) > 100) {
    const cut = path.lastIndexOf('/', 155);
    if (cut < 0 || Buffer.byteLength(path.slice(cut + 1)) > 100) throw new Error(`Path too long for a tar header: ${path}`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  const octal = (value: number, width: number) => value.toString(8).padStart(width - 1, '0') + '\0';
  header.write(name, 0, 100, 'utf8');
  header.write(octal(0o644, 8), 100, 8, 'ascii');
  header.write(octal(0, 8), 108, 8, 'ascii'); // uid
  header.write(octal(0, 8), 116, 8, 'ascii'); // gid
  header.write(octal(size, 12), 124, 12, 'ascii');
  header.write(octal(PACK_TIME, 12), 136, 12, 'ascii');
  header.fill(' ', 148, 156); // the checksum counts its own field as spaces
  header.write('0', 156, 1, 'ascii'); // a regular file
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return header;
}

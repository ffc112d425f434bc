/**
 * The layer rules (.dependency-cruiser.cjs) catch a wrong-way import: run the checker on a fixture
 * whose port imports its implementation, whose domain module reads a file, and whose store reaches
 * AWS by hand (its own HTTPS connection and signer) instead of through the SDK's clients.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

async function cruise(cwd: string, paths: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, [...paths, '--config', CONFIG, '--output-type', 'err'], { cwd });
    return { code: 0, output: stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('layer rules', () => {
  it('fail on a port importing its implementation, on domain I/O and on AWS reached by hand (own connection, own signing)', async () => {
    const { code, output } = await cruise(join(import.meta.dirname, 'fixture'), ['lambdas']);
    expect(code).not.toBe(0);
    expect(output).toContain('ports-import-only-domain: lambdas/ports/widget-store.ts → lambdas/store/widget-store.ts');
    expect(output).toContain('domain-does-no-io: lambdas/domain/widget.ts → fs');
    expect(output).toContain('aws-through-the-sdk-no-own-http: lambdas/store/signed-widget-client.ts → https');
    expect(output).toMatch(/aws-through-the-sdk-no-own-signing: lambdas\/store\/signed-widget-client\.ts → \S*@smithy\/signature-v4/);
    expect(output).toContain('4 dependency violations');
  });

  it('pass on the code base', async () => {
    const { code, output } = await cruise(ROOT, ['lambdas', 'lib', 'bin']);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });

  it('find no request signed by hand under lambdas/: no SigV4 strings, no HMAC (the SDK clients sign)', () => {
    const files = readdirSync(join(ROOT, 'lambdas'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|mjs|js)$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    const signing = /AWS4-HMAC-SHA256|aws4_request|x-amz-date|x-amz-content-sha256|createHmac/i;
    // dynalite's start-up check sends a fixed, unsigned Authorization header (Signature=0) to the thread's own port.
    // The local server signs its own export download links (an HMAC of the link, checked by the same
    // server); no AWS request is signed there.
    const unsigned = ['local/dynalite-thread.mjs', 'local/export-files.ts'];
    expect(files.filter((f) => !unsigned.includes(f) && signing.test(readFileSync(join(ROOT, 'lambdas', f), 'utf8')))).toEqual([]);
  });
});

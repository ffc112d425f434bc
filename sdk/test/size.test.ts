/** The script-tag build's size budget (the issue: at most 8 KB minified and gzipped, experiments included). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const BUNDLE = join(__dirname, '../dist/tally.min.js');
const BUDGET_BYTES = 8 * 1024;

describe('sdk/dist/tally.min.js', () => {
  it('exists (npm test builds it; alone: npm run build -w @tally/sdk)', () => {
    expect(existsSync(BUNDLE)).toBe(true);
  });

  it(`is at most ${BUDGET_BYTES} bytes minified and gzipped`, () => {
    const code = readFileSync(BUNDLE);
    // Level 9, like `gzip -9`: sizes are deterministic for a given zlib.
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`tally.min.js: ${code.length} bytes minified, ${gzipped} bytes gzipped (budget ${BUDGET_BYTES})`);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('defines the global Tally with init and TallyClient, and pulls in no Node module when loaded', () => {
    const sandbox: Record<string, any> = { TextEncoder };
    runInNewContext(readFileSync(BUNDLE, 'utf8'), sandbox);
    expect(typeof sandbox.Tally.init).toBe('function');
    expect(typeof sandbox.Tally.TallyClient).toBe('function');
  });
});

/** The dashboard's size budget (issue 14): everything it serves, gzipped, at most 150 KB. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { buildDashboardSync } from '../../dashboard/build';

/** 150 KB: the total of every built file (index.html, JavaScript, CSS) gzipped at zlib level 9. */
const DASHBOARD_GZIP_BUDGET_BYTES = 150 * 1024;

it(`builds the dashboard within ${DASHBOARD_GZIP_BUDGET_BYTES} bytes gzipped`, () => {
  const outDir = mkdtempSync(join(tmpdir(), 'tally-dashboard-size-'));
  try {
    const { files } = buildDashboardSync(outDir);
    const total = files.reduce((sum, f) => sum + f.gzipBytes, 0);
    console.log(
      `dashboard: ${total} bytes gzipped (${(total / 1024).toFixed(1)} KB of ${DASHBOARD_GZIP_BUDGET_BYTES / 1024} KB): ` +
        files.map((f) => `${f.path} ${f.gzipBytes}`).join(', '),
    );
    expect(files.some((f) => f.path.endsWith('.js'))).toBe(true);
    expect(total).toBeLessThanOrEqual(DASHBOARD_GZIP_BUDGET_BYTES);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

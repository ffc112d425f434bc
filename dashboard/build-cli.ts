/** `npm run build -w @tally/dashboard`: builds into dashboard/dist and prints each file's size. */
import { join } from 'node:path';
import { buildDashboardSync, DASHBOARD_DIR } from './build';

const { files } = buildDashboardSync(join(DASHBOARD_DIR, 'dist'));
for (const f of files) console.log(`${f.path.padEnd(40)} ${String(f.bytes).padStart(8)} B  ${String(f.gzipBytes).padStart(7)} B gzip`);
console.log(`total ${files.reduce((s, f) => s + f.gzipBytes, 0)} B gzip`);

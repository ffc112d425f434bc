/**
 * Curated Parquet written before a curated table gained a column (docs/decisions/columnar-events.md,
 * "Local data from before"): at start, every file under curated/<stream>/ that lacks one of the
 * stream's CURATED_ONLY_COLUMNS (lambdas/contract/landing.ts) is rewritten with it, computed by the
 * rule compaction computes it with (its rows and their order unchanged, ZSTD as compaction writes),
 * into a file beside it whose name does not end in .parquet (no reader's glob takes it), then renamed
 * over it: one rename per file, so a start killed midway leaves each file old or converted, and the
 * next start removes the half-written file and converts the rest. Runs before the server serves and
 * before the compaction job starts, so nothing reads or writes the files meanwhile.
 */
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InProcessDuckDb } from '../adapters/duckdb-local';
import { listDir } from '../adapters/duckdb-stream-views';
import { expandIncludes } from '../adapters/sql/include';
import { quoteLiteral } from '../adapters/sql/render';
import { CURATED_ONLY_COLUMNS, CURATED_PREFIX, CURATED_ZSTD_LEVEL, GENERATION, STREAM_NAMES, type StreamName } from '../contract/landing';

/** The rule (a SELECT list item, rules/<name>.sql) each curated-only column is computed by. */
const COLUMN_RULES: Record<string, string> = { timestamp_minute: 'rules/timestamp-minute.sql' };

/** The suffix of a file being converted. */
const CONVERTING = '.converting';

export interface CuratedColumnsAdded {
  /** Parquet files rewritten with the columns they lacked. */
  files: number;
}

export async function addCuratedColumns(dataDir: string): Promise<CuratedColumnsAdded> {
  let converted = 0;
  const duckDb = new InProcessDuckDb();
  try {
    for (const stream of STREAM_NAMES) {
      const columns = CURATED_ONLY_COLUMNS[stream];
      if (columns.length === 0) continue;
      const files = await parquetFiles(join(dataDir, CURATED_PREFIX, stream));
      if (files.length === 0) continue;
      const lacking = await duckDb.use([], async (session) => {
        const having = await session.rows(
          `SELECT file_name, count(*) AS n FROM parquet_schema([${files.map(quoteLiteral).join(', ')}]) WHERE name IN (${columns.map(quoteLiteral).join(', ')}) GROUP BY file_name`,
        );
        const complete = new Set(having.filter((r) => Number(r.n) === columns.length).map((r) => String(r.file_name)));
        return files.filter((f) => !complete.has(f));
      });
      for (const file of lacking) {
        await duckDb.use([], (session) => session.rows(convertSql(stream, file)));
        await rename(`${file}${CONVERTING}`, file);
        converted += 1;
      }
    }
  } finally {
    await duckDb.close();
  }
  return { files: converted };
}

/** The COPY rewriting one file with every curated-only column it lacks (all of them: a file has none or all). */
function convertSql(stream: StreamName, file: string): string {
  const items = CURATED_ONLY_COLUMNS[stream].map((c) => `  {{> ${COLUMN_RULES[c]}}}`).join(',\n');
  const select = expandIncludes(`SELECT\n  *,\n${items}\nFROM read_parquet(${quoteLiteral(file)}, hive_partitioning = false)`);
  return `COPY (${select}) TO ${quoteLiteral(`${file}${CONVERTING}`)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${CURATED_ZSTD_LEVEL})`;
}

/** The folders of a generation's files under a curated stream's directory, outermost first. */
const GENERATION_FOLDERS = ['project_id=', 'dt=', `${GENERATION}=`];

/**
 * Every .parquet file of a generation (project_id=<id>/dt=<day>/generation=<g>/) under a curated
 * stream's directory, half-written conversions removed. Compaction's staging folder (_staging/, what a
 * killed run was writing, which the next run clears) is not a generation and is left alone.
 */
async function parquetFiles(dir: string, depth = 0): Promise<string[]> {
  const found: string[] = [];
  for (const name of await listDir(dir)) {
    const path = join(dir, name);
    // A name of a folder level that is a file lists as empty (listDir answers none for ENOTDIR).
    if (depth < GENERATION_FOLDERS.length) {
      if (name.startsWith(GENERATION_FOLDERS[depth]!)) found.push(...(await parquetFiles(path, depth + 1)));
    } else if (name.endsWith(CONVERTING)) await rm(path, { force: true });
    else if (name.endsWith('.parquet')) found.push(path);
  }
  return found.sort();
}

/**
 * Data directories written before the landing layout (docs/decisions/columnar-events.md, "Local data
 * from before"): the raw streams were files under events/project_id=<id>/dt=<day>/[received=<hour>/]
 * and identities/project_id=<id>/dt=<day>/. At start, each such file is moved into the landing hour it
 * arrived in (its received= folder; a file without one, by its modification time), where the compaction
 * job takes it into the curated partitions like any other landing file. A move is one rename, so a
 * start that is killed midway leaves every file either moved or still in place, and the next start
 * moves the rest; the old folders are removed once empty. The files' lines are unchanged: they hold
 * project_id and the timestamp, which is all the landing layout reads.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { landingHourDir } from '../adapters/duckdb-stream-views';
import { landingHour, STREAM_NAMES } from '../contract/landing';

export interface LegacyMove {
  /** Files moved into landing hours. */
  files: number;
}

export async function moveLegacyLayout(dataDir: string): Promise<LegacyMove> {
  let files = 0;
  for (const stream of STREAM_NAMES) {
    const root = join(dataDir, stream);
    for (const project of await list(root)) {
      if (!project.startsWith('project_id=')) continue;
      for (const day of await list(join(root, project))) {
        if (!day.startsWith('dt=')) continue;
        const dayDir = join(root, project, day);
        for (const entry of await list(dayDir)) {
          const path = join(dayDir, entry);
          if (entry.startsWith('received=')) {
            const hour = entry.slice('received='.length);
            for (const file of await list(path))
              files += await move(dataDir, stream, join(path, file), /^\d{4}-\d{2}-\d{2}-\d{2}$/.test(hour) ? hour : undefined);
            await rmdir(path).catch(() => undefined);
          } else if (entry.endsWith('.ndjson')) {
            files += await move(dataDir, stream, path, undefined);
          }
        }
        await rmdir(dayDir).catch(() => undefined);
      }
      await rmdir(join(root, project)).catch(() => undefined);
    }
    await rmdir(root).catch(() => undefined);
  }
  return { files };
}

/** Moves one legacy file into its landing hour under a name no other legacy file shares. */
async function move(dataDir: string, stream: (typeof STREAM_NAMES)[number], file: string, hour: string | undefined): Promise<number> {
  if (!file.endsWith('.ndjson')) return 0;
  const arrival = hour ?? landingHour((await stat(file)).mtimeMs);
  const dir = landingHourDir(dataDir, stream, arrival);
  await mkdir(dir, { recursive: true });
  const name = `legacy-${createHash('sha256').update(file).digest('hex').slice(0, 16)}.ndjson`;
  await rename(file, join(dir, name));
  return 1;
}

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

/**
 * People's export files locally (docs/decisions/erasure.md "Export"): <data dir>/exports/project_id=<id>/
 * <export id>.ndjson, the S3 key layout. The download link is the local server's
 * /local/exports/<project id>/<export id>?expires=<ms>&signature=<hex>, an HMAC-SHA256 of the three
 * under a key made at the server's start: like an S3 presigned URL it needs no other credential, names
 * one file, and stops working at its expiry (or when the server restarts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EXPORTS_PREFIX, exportFileKey } from '../contract/landing';
import { EXPORT_FILE_DAYS, EXPORT_LINK_SECONDS } from '../domain/person-export';
import type { DownloadLink, ExportFiles } from '../ports';
import { checkProjectId } from '../adapters/duckdb-stream-views';

export const LOCAL_EXPORTS_PATH = '/local/exports/';

/** What the local server answers a download: the file, or a status and what is wrong. */
export type LocalDownload = { status: 200; body: Buffer; exportId: string } | { status: 403 | 404; error: string };

export class LocalExportFiles implements ExportFiles {
  private readonly key = randomBytes(32);

  constructor(
    private readonly dataDir: string,
    /** The local server's origin (http://host:port), which serves the links. */
    private readonly origin: string,
    /** The server's clock: a file's modification time is when it was written by it (as S3's object creation time). */
    private readonly clock: () => number = Date.now,
  ) {}

  private file(projectId: string, exportId: string): string {
    checkProjectId(projectId);
    if (!/^[0-9a-z-]+$/.test(exportId)) throw new Error('an export ID names no path');
    return join(this.dataDir, exportFileKey(projectId, exportId));
  }

  async put(projectId: string, exportId: string, body: string): Promise<void> {
    const file = this.file(projectId, exportId);
    await mkdir(dirname(file), { recursive: true });
    // Written aside, then renamed: a download sees the whole file or none.
    await writeFile(`${file}.writing`, body);
    const written = this.clock() / 1000;
    await utimes(`${file}.writing`, written, written);
    await rename(`${file}.writing`, file);
  }

  /**
   * The stand-in for the raw bucket's lifecycle rule `expire-exports` (lib/raw-streams.ts): deletes the
   * export files written EXPORT_FILE_DAYS or more before `nowMs`; answers how many. The local
   * compaction schedule runs it after each run (lambdas/local/compaction-scheduler.ts).
   */
  async expire(nowMs: number): Promise<number> {
    const root = join(this.dataDir, EXPORTS_PREFIX);
    const before = nowMs - EXPORT_FILE_DAYS * 86_400_000;
    let removed = 0;
    const projects = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const project of projects) {
      if (!project.isDirectory()) continue;
      for (const name of await readdir(join(root, project.name))) {
        const file = join(root, project.name, name);
        const { mtimeMs } = await stat(file);
        if (mtimeMs > before) continue;
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async remove(projectId: string, exportIds: readonly string[]): Promise<number> {
    let removed = 0;
    for (const id of exportIds) {
      const file = this.file(projectId, id);
      if (
        await stat(file).then(
          () => true,
          () => false,
        )
      )
        removed++;
      await rm(file, { force: true });
    }
    return removed;
  }

  async link(projectId: string, exportId: string, nowMs: number): Promise<DownloadLink> {
    const expires = nowMs + EXPORT_LINK_SECONDS * 1000;
    const path = `${LOCAL_EXPORTS_PATH}${encodeURIComponent(projectId)}/${encodeURIComponent(exportId)}`;
    return {
      url: `${this.origin}${path}?expires=${expires}&signature=${this.sign(projectId, exportId, expires)}`,
      expires_at: new Date(expires).toISOString(),
    };
  }

  /** The file a link names, if its signature holds and it has not expired. */
  async download(url: URL, nowMs: number): Promise<LocalDownload> {
    const [projectId, exportId] = url.pathname.slice(LOCAL_EXPORTS_PATH.length).split('/').map(decodeURIComponent);
    const expires = Number(url.searchParams.get('expires'));
    const given = Buffer.from(url.searchParams.get('signature') ?? '', 'hex');
    if (!projectId || !exportId || !Number.isSafeInteger(expires)) return { status: 404, error: 'Not found: a download link names a project and an export' };
    const expected = Buffer.from(this.sign(projectId, exportId, expires), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { status: 403, error: 'This download link is not valid: get a new one from GET .../exports/{export_id}' };
    }
    if (nowMs > expires) return { status: 403, error: 'This download link has expired: get a new one from GET .../exports/{export_id}' };
    try {
      return { status: 200, body: await readFile(this.file(projectId, exportId)), exportId };
    } catch {
      return { status: 404, error: 'The export file is gone (removed by a deletion of the person, or older than its retention): request a new export' };
    }
  }

  private sign(projectId: string, exportId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${projectId}\n${exportId}\n${expires}`).digest('hex');
  }
}

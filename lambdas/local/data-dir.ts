/**
 * The local data directory and its lock. dynalite's LevelDB store crashes a second process that
 * opens it, so a second server on the same directory is refused with a clear message instead.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, 'server.pid');
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const pid = Number(readFileSync(lock, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(`Another Tally server (pid ${pid}) is using the data directory ${dir}. Stop it, or set TALLY_DATA_DIR to another directory.`);
    }
    writeFileSync(lock, String(process.pid));
  }
  return () => rmSync(lock, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The admin token file of a data directory. */
export const adminTokenFile = (dir: string) => join(dir, 'admin-token');

/**
 * The admin token of a data directory: the one kept in it from an earlier start ("reused"), else a new
 * one ("generated"), not yet written: keepAdminToken writes it once the server has started, so a start
 * that fails (the port in use) leaves nothing behind.
 */
export function adminTokenFor(dir: string): { token: string; source: 'reused' | 'generated' } {
  try {
    const token = readFileSync(adminTokenFile(dir), 'utf8').trim();
    if (token) return { token, source: 'reused' };
  } catch {
    // First start: generate below.
  }
  return { token: `tadm_${randomBytes(24).toString('base64url')}`, source: 'generated' };
}

/** Keeps a generated token in the data directory (mode 0600), so restarts reuse it. */
export function keepAdminToken(dir: string, token: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(adminTokenFile(dir), token + '\n', { mode: 0o600 });
}

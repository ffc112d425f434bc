/**
 * The local server's query engine: DuckDB in a process of its own, started at the first query, at a
 * lower CPU priority than the server (duckdb-process-child.mjs), as Athena runs apart from the Lambdas
 * that call it. A heavy insight then uses whatever CPU the server leaves, and ingestion keeps its
 * latency (docs/development.md, "No request blocks the local server"); a query's rows are turned into
 * objects, and an insight's result file written, in that process, not on the server's thread.
 *
 * Rows cross with Node's structured clone (bigint and dates kept). If the process dies, its queries
 * fail with a message saying so, and the next query starts a new one.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { gated } from '../adapters/duckdb-gate';
import { sessionStatements, type DuckDbRow, type DuckDbSession, type LocalDuckDb, type LocalView } from '../adapters/duckdb-local';
import { localDuckDbConfig } from '../adapters/duckdb-threads';

const CHILD = fileURLToPath(new URL('./duckdb-process-child.mjs', import.meta.url));

type Reply = { ready: true } | { id: number; result: unknown } | { id: number; error: string };

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

export interface DuckDbProcessOptions {
  /** DuckDB's threads; by default every core (the lower priority leaves the server its share). */
  threads?: number;
  /** The process's niceness (Unix; a priority class on Windows); default 10. */
  niceness?: number;
}

/** A started query process and the calls it has not answered. */
interface Running {
  child: ChildProcess;
  pending: Map<number, Pending>;
}

export class DuckDbProcess implements LocalDuckDb {
  private child: Promise<Running> | undefined;
  private nextId = 1;

  constructor(private readonly options: DuckDbProcessOptions = {}) {}

  async use<T>(views: LocalView[], work: (session: DuckDbSession) => Promise<T>): Promise<T> {
    const statements = sessionStatements(views);
    return work({
      rows: (sql) => this.call({ statements, sql }) as Promise<DuckDbRow[]>,
      writeRows: (sql, file) => this.call({ statements, sql, file }) as Promise<number>,
    });
  }

  /** One query, through the process's DuckDB gate (at most two in flight, as in-process). */
  private call(message: { statements: string[]; sql: string; file?: string }): Promise<unknown> {
    return gated(async () => {
      const { child, pending } = await this.start();
      const id = this.nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, ...message }, (err) => {
          if (!err) return;
          pending.delete(id);
          reject(new Error(`the local query engine (DuckDB) did not take the query: ${err.message}`));
        });
      });
    });
  }

  private start(): Promise<Running> {
    if (this.child) return this.child;
    const starting = new Promise<Running>((resolve, reject) => {
      const pending = new Map<number, Pending>();
      const child = fork(CHILD, [], {
        // Plain JavaScript: no TypeScript loader, whatever ran the server.
        execArgv: [],
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: {
          ...process.env,
          TALLY_DUCKDB_CONFIG: JSON.stringify(localDuckDbConfig(this.options.threads ?? availableParallelism())),
          TALLY_DUCKDB_NICENESS: String(this.options.niceness ?? 10),
        },
      });
      child.on('message', (reply: Reply) => {
        if ('ready' in reply) return resolve({ child, pending });
        const call = pending.get(reply.id);
        pending.delete(reply.id);
        if (!call) return;
        if ('error' in reply) call.reject(new Error(reply.error));
        else call.resolve(reply.result);
      });
      child.once('error', (err) => reject(new Error(`the local query engine (DuckDB) could not start: ${err.message}`)));
      child.once('exit', (code, signal) => {
        // Forgotten only if it is still the current one (a close may have started another since).
        if (this.child === starting) this.child = undefined;
        const why = new Error(`the local query engine (DuckDB) stopped (${signal ?? `exit code ${code}`}); the next query starts it again`);
        reject(why);
        for (const call of pending.values()) call.reject(why);
        pending.clear();
      });
    });
    this.child = starting;
    return starting;
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    const running = (await child.catch(() => undefined))?.child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.disconnect();
    });
  }
}

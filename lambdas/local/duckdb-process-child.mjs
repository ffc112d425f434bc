// The local query engine's process (duckdb-process.ts starts it): DuckDB at a lower CPU priority than
// the server, answering one message per query. Plain JavaScript, so it starts without a TypeScript
// loader. It exits when the server's channel closes (the server stopped, or was killed).
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

const NICENESS = Number(process.env.TALLY_DUCKDB_NICENESS ?? 10);

/**
 * Lowers this process's CPU priority. On Linux a priority belongs to each thread and a new thread takes
 * its creator's, so every thread that exists is lowered (Node's and libuv's, started before this code
 * ran; DuckDB's, started by them, then inherit it). Elsewhere (macOS, Windows) it is the process's.
 * Raising one's own niceness needs no privilege; where the system refuses, queries run at the
 * server's priority.
 */
function lowerPriority() {
  let threads = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux.
  }
  for (const id of threads.length > 0 ? threads : [0]) {
    try {
      setPriority(id, NICENESS);
    } catch {
      // A thread that ended meanwhile, or a refusal.
    }
  }
}

lowerPriority();
const { DuckDBInstance } = await import('@duckdb/node-api');
const { writeRowsFile } = await import('../adapters/duckdb-rows-file.mjs');

const config = JSON.parse(process.env.TALLY_DUCKDB_CONFIG ?? '{}');
const instance = await DuckDBInstance.create(':memory:', config);
lowerPriority();

process.on('disconnect', () => process.exit(0));

process.on('message', (message) => {
  void answer(message).then(
    (result) => process.send?.({ id: message.id, result }),
    (err) => process.send?.({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});

/** { id, statements, sql, file? }: opens a connection, runs the statements (macros, views), then the query; with `file`, writes the rows there and answers their number. */
async function answer({ statements, sql, file }) {
  lowerPriority(); // any thread started since; a few system calls
  const connection = await instance.connect();
  try {
    for (const statement of statements) await connection.run(statement);
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS();
    return file === undefined ? rows : await writeRowsFile(rows, file);
  } finally {
    connection.closeSync();
  }
}

process.send?.({ ready: true });

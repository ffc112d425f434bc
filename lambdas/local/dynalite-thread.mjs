// The body of the local DynamoDB's worker thread (lambdas/local/dynalite.ts): dynalite listening on
// 127.0.0.1, on a port of the system's choosing. Plain JavaScript, so the thread starts without the
// TypeScript loader. Messages: out { port } once listening, { error } if it cannot start, 'closed'
// after 'close' in (dynalite's close also closes its LevelDB, so nothing acknowledged is lost).
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';

const server = dynalite({ path: workerData.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.once('error', (err) => parentPort.postMessage({ error: err.message }));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => parentPort.postMessage('closed'));
});

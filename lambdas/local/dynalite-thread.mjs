// The body of the local DynamoDB's worker thread (lambdas/local/dynalite.ts): dynalite listening on
// 127.0.0.1, on a port of the system's choosing. Plain JavaScript, so the thread starts without the
// TypeScript loader. Messages: out { port } once it answers, { error } if it cannot start or fails,
// { closed, error? } after 'close' in (dynalite's close also closes its LevelDB, so nothing acknowledged is lost).
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';

const server = dynalite({ path: workerData.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.once('error', (err) => parentPort.postMessage({ error: err.message }));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  // dynalite opens its LevelDB on first use: one ListTables makes a directory it cannot open (locked,
  // corrupt, a file) fail the start, instead of the first request the server answers.
  selfCheck(port).then(
    () => parentPort.postMessage({ port }),
    (err) => parentPort.postMessage({ error: err.message }),
  );
});
parentPort.on('message', (message) => {
  if (message === 'close') server.close((err) => parentPort.postMessage({ closed: true, error: err?.message }));
});

function selfCheck(port) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: {
          'Content-Type': 'application/x-amz-json-1.0',
          'X-Amz-Target': 'DynamoDB_20120810.ListTables',
          'X-Amz-Date': '20260101T000000Z',
          // dynalite needs a well-formed Authorization header and does not check the signature.
          Authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`ListTables answered ${res.statusCode}: ${body.slice(0, 300)}`))));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

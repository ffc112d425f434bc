/**
 * Clients that send too slowly or too much: the key is checked before the body is read, a request
 * must arrive within its time bounds, and an early answer (401, 413) reaches the client instead of a
 * broken pipe.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
let key: string;
const timeouts = { headersMs: 1_000, bodyMs: 1_000, discardMs: 1_000 };

beforeAll(async () => {
  stack = await startTestStack({ timeouts });
  key = await stack.createKey(await stack.createProject('slow clients'));
});
afterAll(() => stack.stop());

/** A raw connection that records what the server sends and when it closes, relative to its start. */
function rawClient() {
  const { port } = new URL(stack.url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  const started = Date.now();
  let received = '';
  let firstByteAt: number | undefined;
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  socket.on('data', (d) => {
    firstByteAt ??= Date.now() - started;
    received += d;
  });
  socket.on('error', () => undefined);
  return { socket, closed, received: () => received, firstByteAt: () => firstByteAt };
}

/** Writes a byte every 100 ms until the socket closes; the slow-loris pattern. */
function trickle(socket: Socket): void {
  const timer = setInterval(() => (socket.writable ? socket.write('x') : clearInterval(timer)), 100);
  socket.on('close', () => clearInterval(timer));
}

const head = (auth: string) => `POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${auth}Content-Length: 100000\r\n\r\n`;

describe('slow clients', () => {
  it('an unauthenticated request trickling a body is answered 401 at once, and the connection is cut within the discard bound', async () => {
    const client = rawClient();
    client.socket.write(head('Authorization: Bearer not-a-key\r\n'));
    trickle(client.socket);
    const closedAfter = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(client.received()).toContain('{"error":"Invalid or missing API key"}');
    expect(client.firstByteAt()!).toBeLessThan(500);
    expect(closedAfter).toBeLessThan(timeouts.discardMs + 1_000);
  });

  it('an authenticated slow-loris body is cut off with 408 within the body bound', async () => {
    const client = rawClient();
    client.socket.write(head(`Authorization: Bearer ${key}\r\n`));
    trickle(client.socket);
    const closedAfter = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received()).toMatch(/did not arrive within 1 s/);
    expect(closedAfter).toBeGreaterThanOrEqual(timeouts.bodyMs - 50);
    expect(closedAfter).toBeLessThan(timeouts.bodyMs + 1_000);
  });

  it('headers that never finish are cut off within the headers bound', async () => {
    const client = rawClient();
    client.socket.write('POST /v1/events HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => client.socket.writable && client.socket.write('X-Slow: 1\r\n'), 100);
    const closedAfter = await client.closed;
    clearInterval(timer);
    expect(closedAfter).toBeLessThan(timeouts.headersMs + 1_500);
  });
});

describe('a 50 MB body with Content-Length', () => {
  const body = Buffer.alloc(50 * 1024 * 1024, 0x20);

  it('fetch reads the 413 (and an unauthenticated one the 401) instead of a broken pipe', async () => {
    const send = (auth: string) =>
      fetch(`${stack.url}/v1/events`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body });
    const tooLarge = await send(`Bearer ${key}`);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ error: expect.stringMatching(/larger than 1048576 bytes/) });
    const unauthenticated = await send('Bearer nope');
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toEqual({ error: 'Invalid or missing API key' });
  });

  it('http.request reads the 413 on /api/events', async () => {
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = request(`${stack.url}/api/events`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Length': body.length } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d)).on('end', () => resolve({ status: res.statusCode, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: expect.stringMatching(/larger than 1048576 bytes/) });
  });
});

/**
 * The signed JSON client against a local node:http server standing in for DynamoDB and Firehose:
 * retries like the SDK's standard mode (throttling, 5xx, dropped connections; never other 4xx), errors
 * shaped like the SDK's (what isTransient and the stores read), the idle timeout per attempt (a frozen
 * pool, connecting, a large body), and where credentials, region and endpoint come from.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../helpers/sdk-sha256';
import dns from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DocumentClient, GetCommand, PutCommand } from '../../lambdas/aws-client/dynamodb';
import { resolveEndpoint } from '../../lambdas/aws-client/endpoint';
import { FirehoseClient, PutRecordBatchCommand } from '../../lambdas/aws-client/firehose';
import { resolveCredentials } from '../../lambdas/aws-client/credentials';
import { isTransient } from '../../lambdas/domain/transient-error';

/** delayMs: the answer is sent that long after the request arrived. */
type Reply = { status: number; body: object; headers?: Record<string, string>; delayMs?: number } | 'drop' | 'stall';
interface Seen {
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: which connection the request came on. */
  port: number | undefined;
  path: string | undefined;
  /** When the request arrived (ms). */
  at: number;
}

let server: Server;
let endpoint: string;
let replies: Reply[] = [];
let always: Reply | undefined;
let seen: Seen[] = [];
/** Connections (by the client's port) that get no answer any more, as kept-alive sockets after a Lambda freeze. */
let silentPorts = new Set<number>();

const error = (status: number, type: string, extra: object = {}): Reply => ({
  status,
  body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `${type} happened`, ...extra },
  headers: { 'x-amzn-requestid': `req-${seen.length}` },
});

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ headers: req.headers, body, port: req.socket.remotePort, path: req.url, at: performance.now() });
      if (silentPorts.has(req.socket.remotePort!)) return;
      const reply = replies.shift() ?? always ?? { status: 200, body: {} };
      if (reply === 'drop') return void req.socket.destroy();
      if (reply === 'stall') return;
      const answer = () => {
        res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});
afterEach(() => vi.restoreAllMocks());
beforeEach(() => {
  replies = [];
  always = undefined;
  seen = [];
  silentPorts = new Set();
});

const credentials = { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'TOKEN' };
const ddb = (maxAttempts?: number) =>
  new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0, ...(maxAttempts ? { maxAttempts } : {}) });
const get = new GetCommand({ TableName: 't', Key: { pk: 'a' } });

async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('AWS JSON client: retries', () => {
  it('retries a 500, a throttling 400 and a dropped connection, then succeeds (DynamoDB: 4 attempts)', async () => {
    replies = [
      error(500, 'InternalServerError'),
      error(400, 'ProvisionedThroughputExceededException'),
      'drop',
      { status: 200, body: { Item: { pk: { S: 'a' } } } },
    ];
    const client = ddb();
    const out = await client.send(get);
    expect(out.Item).toEqual({ pk: 'a' });
    expect(out.$metadata.attempts).toBe(4);
    expect(seen).toHaveLength(4);
    // Each attempt is the same call, signed afresh.
    for (const s of seen) {
      expect(s.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
      expect(s.headers['content-type']).toBe('application/x-amz-json-1.0');
      expect(JSON.parse(s.body)).toEqual({ TableName: 't', Key: { pk: { S: 'a' } } });
    }
    client.destroy();
  });

  it("sends what it signed: the SDK's own SignatureV4, run by the server over the request it received, gives the same signature", async () => {
    replies = [{ status: 200, body: {} }];
    const client = ddb();
    await client.send(new PutCommand({ TableName: 't', Item: { pk: 'a', name: 'Zoë 🚀', bytes: new Uint8Array([1, 2]) } }));
    const { headers, body, path } = seen[0]!;
    expect(headers['x-amz-security-token']).toBe('TOKEN');
    const date = String(headers['x-amz-date']);
    const signingDate = new Date(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
    );
    // Everything received but what signing adds; the SDK leaves out the headers it never signs (connection).
    const received = Object.fromEntries(
      Object.entries(headers)
        .filter(([n]) => !['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256'].includes(n))
        .map(([n, v]) => [n, String(v)]),
    );
    const url = new URL(endpoint);
    const signer = new SignatureV4({ credentials, region: 'eu-west-1', service: 'dynamodb', sha256: Sha256 as never });
    const signed = (await signer.sign(
      { method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: path!, query: {}, headers: received, body } as never,
      { signingDate },
    )) as unknown as { headers: Record<string, string> };
    expect(signed.headers['x-amz-content-sha256']).toBe(headers['x-amz-content-sha256']);
    expect(signed.headers.authorization).toBe(headers.authorization);
    client.destroy();
  });

  it('does not retry ValidationException: one attempt, the error shaped like the SDK', async () => {
    replies = [error(400, 'ValidationException')];
    const err = await failure(ddb().send(get));
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe('ValidationException happened');
    expect(err.$fault).toBe('client');
    expect(err.$metadata).toMatchObject({ httpStatusCode: 400, requestId: 'req-0', attempts: 1 });
    expect(err.$retryable).toBeUndefined();
    expect(isTransient(err)).toBe(false);
  });

  it('does not retry ConditionalCheckFailedException, and keeps its Item (ALL_OLD) as the wire has it', async () => {
    replies = [error(400, 'ConditionalCheckFailedException', { Item: { pk: { S: 'a' }, owner: { S: 'other' } } })];
    const err = await failure(
      ddb().send(
        new PutCommand({
          TableName: 't',
          Item: { pk: 'a', owner: 'me' },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(seen).toHaveLength(1);
    expect(err.name).toBe('ConditionalCheckFailedException');
    expect(err.Item).toEqual({ pk: { S: 'a' }, owner: { S: 'other' } });
    expect(JSON.parse(seen[0]!.body).ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('gives up after the last attempt with a transient error: 5xx (server fault)', async () => {
    always = error(503, 'ServiceUnavailable');
    const err = await failure(ddb().send(get));
    expect(seen).toHaveLength(4);
    expect(err.name).toBe('ServiceUnavailable');
    expect(err.$fault).toBe('server');
    expect(err.$metadata.attempts).toBe(4);
    expect(isTransient(err)).toBe(true);
  });

  it('does not retry what the SDK does not: a 501 is tried once (though still answered 503 as a server fault)', async () => {
    always = error(501, 'NotImplemented');
    const err = await failure(ddb().send(get));
    expect(seen).toHaveLength(1);
    expect(err.$metadata.attempts).toBe(1);
    expect(isTransient(err)).toBe(true);
  });

  it('retries a failed DNS lookup (ENOTFOUND), as the SDK does, and the failure is transient', async () => {
    const client = new DocumentClient({ endpoint: 'http://tally-nowhere.invalid', region: 'eu-west-1', credentials, backoffScale: 0 });
    const err = await failure(client.send(get));
    expect(err.code).toBe('ENOTFOUND');
    expect(err.$metadata.attempts).toBe(4);
    expect(isTransient(err)).toBe(true);
    client.destroy();
  });

  it('gives up after the last attempt with a transient error: throttling, marked $retryable', async () => {
    always = error(400, 'ProvisionedThroughputExceededException');
    const err = await failure(ddb(2).send(get));
    expect(seen).toHaveLength(2);
    expect(err.$retryable).toEqual({ throttling: true });
    expect(isTransient(err)).toBe(true);
  });

  it('gives up after the last attempt with a transient error: dropped connections keep their code', async () => {
    always = 'drop';
    const err = await failure(ddb().send(get));
    expect(seen).toHaveLength(4);
    expect(err.code).toBe('ECONNRESET');
    expect(err.$metadata.attempts).toBe(4);
    expect(isTransient(err)).toBe(true);
  });

  it('waits between attempts as the backoff rule says: from 1 s after throttling (a 429), from 25 ms otherwise, doubling', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    // Throttling: half of 1 s, scaled by 0.1: 50 ms.
    replies = [{ status: 429, body: {} }];
    const client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0.1 });
    const throttled = await client.send(get);
    expect(throttled.$metadata).toMatchObject({ attempts: 2, totalRetryDelay: 50 });
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(45);
    // 5xx on DynamoDB: half of 25 ms, then half of 50 ms, then half of 100 ms, unscaled: 12, 25 and 50 ms.
    seen = [];
    replies = [error(500, 'InternalServerError'), error(502, 'BadGateway'), error(504, 'GatewayTimeout')];
    const unscaled = new DocumentClient({ endpoint, region: 'eu-west-1', credentials });
    const out = await unscaled.send(get);
    expect(out.$metadata).toMatchObject({ attempts: 4, totalRetryDelay: 12 + 25 + 50 });
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(11);
    expect(gaps[1]).toBeGreaterThanOrEqual(24);
    expect(gaps[2]).toBeGreaterThanOrEqual(49);
    client.destroy();
    unscaled.destroy();
  });

  it('stops retrying when the retry quota is spent under sustained throttling, and successes refill it', async () => {
    always = error(400, 'ProvisionedThroughputExceededException');
    const client = ddb();
    const attempts: number[] = [];
    for (let i = 0; i < 36; i++) attempts.push((await failure(client.send(get))).$metadata.attempts);
    // 500 tokens at 5 a retry: 33 calls with all 4 attempts (3 retries, 15 tokens each), one with 2, then 1.
    expect(attempts.slice(0, 33)).toEqual(Array(33).fill(4));
    expect(attempts.slice(33)).toEqual([2, 1, 1]);
    expect(seen).toHaveLength(33 * 4 + 2 + 1 + 1);
    // Successes without retries give back a token each: five make room for one retry again.
    always = { status: 200, body: {} };
    for (let i = 0; i < 5; i++) await client.send(get);
    always = error(400, 'ProvisionedThroughputExceededException');
    expect((await failure(client.send(get))).$metadata.attempts).toBe(2);
    client.destroy();
  });

  it('fails an attempt that gets no byte within the idle timeout with a TimeoutError, and retries it on a new connection', async () => {
    replies = [{ status: 200, body: {} }, 'stall', { status: 200, body: { Item: { pk: { S: 'b' } } } }];
    const client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 300 });
    await client.send(get);
    const started = Date.now();
    const out = await client.send(get);
    expect(out.Item).toEqual({ pk: 'b' });
    expect(out.$metadata.attempts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // The first call's kept-alive connection carried the stalled attempt; the retry came on another.
    expect(seen[1]!.port).toBe(seen[0]!.port);
    expect(seen[2]!.port).not.toBe(seen[1]!.port);
    client.destroy();
  });

  it('against a server that accepts connections and never answers, every attempt times out: a transient TimeoutError', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as AddressInfo).port;
      const client = new DocumentClient({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 100 });
      const err = await failure(client.send(get));
      expect(err.name).toBe('TimeoutError');
      expect(err.message).toMatch(/dynamodb after 100 ms/);
      expect(err.$metadata.attempts).toBe(4);
      expect(sockets).toHaveLength(4);
      expect(isTransient(err)).toBe(true);
      client.destroy();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('keeps the idle timeout per attempt: a kept-alive connection idle longer than it between calls is still used', async () => {
    const client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 100 });
    await client.send(get);
    await new Promise((r) => setTimeout(r, 250));
    const out = await client.send(get);
    expect(out.$metadata.attempts).toBe(1);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.port).toBe(seen[0]!.port);
    client.destroy();
  });

  it('reads the error name from x-amzn-errortype and Message in capitals (Firehose: 3 attempts)', async () => {
    always = { status: 500, body: { Message: 'Service busy' }, headers: { 'x-amzn-errortype': 'ServiceUnavailableException:http://internal.amazon.com/' } };
    const firehose = new FirehoseClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0 });
    const err = await failure(firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: 's', Records: [{ Data: Buffer.from('x') }] })));
    expect(seen).toHaveLength(3);
    expect(err.name).toBe('ServiceUnavailableException');
    expect(err.message).toBe('Service busy');
    expect(isTransient(err)).toBe(true);
    firehose.destroy();
  });
});

describe('AWS JSON client: the idle timeout after a Lambda freeze, while connecting and while sending', () => {
  it('after a TimeoutError drops the pooled kept-alive connections too: when all 8 went silent (a Lambda freeze), the retry opens a new one', async () => {
    const client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 200 });
    await Promise.all(Array.from({ length: 8 }, () => client.send(get)));
    const pooled = new Set(seen.map((s) => s.port!));
    expect(pooled.size).toBe(8);
    // Every pooled connection now takes requests and never answers; new connections still do.
    silentPorts = new Set(pooled);
    seen = [];
    const out = await client.send(get);
    expect(out.$metadata.attempts).toBe(2);
    expect(seen).toHaveLength(2);
    expect(pooled.has(seen[0]!.port!)).toBe(true);
    expect(pooled.has(seen[1]!.port!)).toBe(false);
    // The next call finds no dead connection left in the pool.
    const next = await client.send(get);
    expect(next.$metadata.attempts).toBe(1);
    expect(pooled.has(seen[2]!.port!)).toBe(false);
    client.destroy();
  });

  it("leaves the connections of calls still in flight alone: a concurrent call's answer arrives after another call's timeout dropped the pool", async () => {
    const client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 400 });
    await client.send(get);
    silentPorts = new Set([seen[0]!.port!]);
    // The first call takes the silent pooled connection and times out at ~400 ms; the second, started at
    // ~200 ms on a new connection, is answered at ~500 ms, after that timeout.
    const stalled = client.send(get);
    await new Promise((r) => setTimeout(r, 200));
    replies = [{ status: 200, body: { Item: { pk: { S: 'slow' } } }, delayMs: 300 }];
    const inFlight = await client.send(get);
    expect(inFlight.Item).toEqual({ pk: 'slow' });
    expect(inFlight.$metadata.attempts).toBe(1);
    expect((await stalled).$metadata.attempts).toBe(2);
    client.destroy();
  });

  it('counts the DNS lookup and the connect in the idle timeout: a lookup that never answers fails each attempt with a TimeoutError', async () => {
    const lookup = dns.lookup;
    const hung: string[] = [];
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, ...rest: unknown[]) => {
      if (hostname === 'dynamodb.hangs.test') return void hung.push(hostname);
      return (lookup as (...args: unknown[]) => void)(hostname, ...rest);
    }) as never);
    const client = new DocumentClient({ endpoint: 'http://dynamodb.hangs.test', region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 100 });
    const err = await failure(client.send(get));
    expect(err.name).toBe('TimeoutError');
    expect(err.$metadata.attempts).toBe(4);
    expect(hung).toHaveLength(4);
    expect(isTransient(err)).toBe(true);
    client.destroy();
  }, 5_000);

  it('gives the bytes still in the socket buffers time to leave: a 6 MB body whose last megabytes reach the reader well after the idle timeout is answered on its first attempt', async () => {
    let received = 0;
    let readMs = 0;
    const slow = createServer((req, res) => {
      const started = performance.now();
      req.pause();
      // What arrived since the last look, every 10 ms: steady, but the body takes most of a second.
      const reader = setInterval(() => {
        const chunk = req.read() as Buffer | null;
        if (chunk) received += chunk.length;
      }, 10);
      req.on('end', () => {
        clearInterval(reader);
        readMs = performance.now() - started;
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ FailedPutCount: 0, RequestResponses: [{ RecordId: 'r' }] }));
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const port = (slow.address() as AddressInfo).port;
      const firehose = new FirehoseClient({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-west-1', credentials, backoffScale: 0, attemptTimeoutMs: 200 });
      // 4.5 MB of records, 6 MB as base64 on the wire (Firehose's largest batch is 4 MiB).
      const records = Array.from({ length: 3 }, (_, i) => ({ Data: Buffer.alloc(1_500_000, 97 + i) }));
      const out = await firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: 's', Records: records }));
      expect(out.$metadata.attempts).toBe(1);
      expect(received).toBeGreaterThan(6_000_000);
      // Several idle timeouts in all; the kernel took the whole body long before the reader had it (on
      // loopback its buffers hold a few MB), so no byte moved in Node's sight for longer than 200 ms.
      expect(readMs).toBeGreaterThan(3 * 200);
      firehose.destroy();
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});

describe('Firehose PutRecordBatch', () => {
  it('sends Data as base64 with JSON 1.1 and returns FailedPutCount and RequestResponses', async () => {
    replies = [
      {
        status: 200,
        body: {
          FailedPutCount: 1,
          Encrypted: false,
          RequestResponses: [{ RecordId: 'r1' }, { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'busy' }],
        },
      },
    ];
    const firehose = new FirehoseClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0 });
    const out = await firehose.send(
      new PutRecordBatchCommand({ DeliveryStreamName: 'tally-events', Records: [{ Data: Buffer.from('{"a":"é"}\n') }, { Data: new Uint8Array([0, 255]) }] }),
    );
    expect(out.FailedPutCount).toBe(1);
    expect(out.RequestResponses).toEqual([{ RecordId: 'r1' }, { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'busy' }]);
    expect(seen[0]!.headers['x-amz-target']).toBe('Firehose_20150804.PutRecordBatch');
    expect(seen[0]!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(JSON.parse(seen[0]!.body)).toEqual({
      DeliveryStreamName: 'tally-events',
      Records: [{ Data: Buffer.from('{"a":"é"}\n').toString('base64') }, { Data: 'AP8=' }],
    });
    firehose.destroy();
  });
});

describe('credentials, region and endpoint', () => {
  it('fails the first call, not the construction, naming the variables to set', async () => {
    const names = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_DEFAULT_REGION'];
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    try {
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      const client = new DocumentClient({ endpoint, region: 'eu-west-1' });
      const err = await failure(client.send(get));
      expect(err.message).toMatch(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
      expect(seen).toHaveLength(0);
      delete process.env.AWS_REGION;
      delete process.env.AWS_DEFAULT_REGION;
      const noRegion = await failure(new DocumentClient({ endpoint, credentials }).send(get));
      expect(noRegion.message).toMatch(/AWS_REGION/);
    } finally {
      for (const [n, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[n];
        else process.env[n] = v;
      }
    }
  });

  it("reads Lambda's variables: key, secret and session token", () => {
    expect(resolveCredentials(undefined, { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'S', AWS_SESSION_TOKEN: 'T' })).toEqual({
      accessKeyId: 'A',
      secretAccessKey: 'S',
      sessionToken: 'T',
    });
    expect(resolveCredentials(undefined, { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'S' })).toEqual({ accessKeyId: 'A', secretAccessKey: 'S' });
    expect(resolveCredentials(credentials, {})).toBe(credentials);
  });

  it('resolves endpoints as the SDK: option, AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, then regional (.cn in China)', () => {
    expect(resolveEndpoint('dynamodb', { region: 'eu-west-1' }, {}).url.href).toBe('https://dynamodb.eu-west-1.amazonaws.com/');
    expect(resolveEndpoint('firehose', {}, { AWS_REGION: 'cn-north-1' }).url.href).toBe('https://firehose.cn-north-1.amazonaws.com.cn/');
    expect(resolveEndpoint('firehose', {}, { AWS_DEFAULT_REGION: 'us-east-2' })).toMatchObject({ region: 'us-east-2' });
    const env = { AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL: 'http://general:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamo:2' };
    expect(resolveEndpoint('dynamodb', {}, env).url.href).toBe('http://dynamo:2/');
    expect(resolveEndpoint('firehose', {}, env).url.href).toBe('http://general:1/');
    expect(resolveEndpoint('dynamodb', { endpoint: 'http://explicit:3' }, env).url.href).toBe('http://explicit:3/');
    expect(() => resolveEndpoint('dynamodb', { endpoint: 'not a url' }, env)).toThrow(/not a URL/);
  });

  it('reaches the endpoint AWS_ENDPOINT_URL_DYNAMODB names', async () => {
    const saved = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    try {
      const client = new DocumentClient({ region: 'eu-west-1', credentials });
      await client.send(get);
      expect(seen).toHaveLength(1);
      client.destroy();
    } finally {
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = saved;
    }
  });
});

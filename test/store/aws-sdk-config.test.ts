/**
 * The AWS SDK's DynamoDB and Firehose clients as Tally configures them (lambdas/store/aws-sdk-config.ts),
 * against local servers standing in for the services: the socket idle timeout per attempt (a server
 * that accepts and never answers; every pooled kept-alive connection gone silent, as after a Lambda
 * freeze), the connect timeout (a DNS lookup that never answers), the deadline of a call, the errors
 * isTransient reads, and the endpoints the SDK resolves (FIPS, dual-stack). Assertions are on attempts,
 * connections and the order of events, never on elapsed time.
 */
import dns from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AWS_CALL_LIMITS } from '../../lambdas/contract/aws-call-limits';
import { isTransient } from '../../lambdas/domain/transient-error';
import type { AwsClientOptions } from '../../lambdas/store/aws-sdk-config';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { firehoseClient } from '../../lambdas/store/firehose-client';
import { noBackoff } from '../helpers/dynamo';

/**
 * delayMs: the answer is sent that long after the request arrived. until: the answer trickles (a space
 * of the JSON body every 50 ms, so the connection is never idle for long) and ends when the promise resolves.
 * 'stall': never answered.
 */
type Reply = { status: number; body: object; headers?: Record<string, string>; delayMs?: number; until?: Promise<void> } | 'stall';
interface Seen {
  target: string;
  /** The client's port: which connection the request came on. */
  port: number;
}

let server: Server;
let endpoint: string;
let replies: Reply[] = [];
let always: Reply | undefined;
let seen: Seen[] = [];
/** Connections (by the client's port) that get no answer any more, as kept-alive sockets after a Lambda freeze. */
let silentPorts = new Set<number>();
/** Ports whose connection the client closed. */
let closedPorts: number[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const port = req.socket.remotePort!;
      seen.push({ target: String(req.headers['x-amz-target']), port });
      if (silentPorts.has(port)) return;
      const reply = replies.shift() ?? always ?? { status: 200, body: {} };
      if (reply === 'stall') return;
      if (reply.until) {
        res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0' });
        const trickle = setInterval(() => res.write(' '), 50);
        void reply.until.then(() => {
          clearInterval(trickle);
          res.end(JSON.stringify(reply.body));
        });
        return;
      }
      const answer = () => {
        res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  server.on('connection', (socket: Socket) => {
    const port = socket.remotePort!;
    socket.on('close', () => closedPorts.push(port));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  replies = [];
  always = undefined;
  seen = [];
  silentPorts = new Set();
  closedPorts = [];
});
afterEach(() => vi.restoreAllMocks());

const credentials = { accessKeyId: 'AK', secretAccessKey: 'SK' };
// Clients reaching the local servers get a 10 s connect timeout: a loaded machine can leave the event
// loop without a turn for over a second, and only the DNS test is about connecting.
/**
 * The idle timeout of the tests whose connections must not time out by chance: far above how long a
 * loaded machine may leave the event loop without a turn, so only the silent connections time out.
 */
const IDLE_MS = 1_500;
const clients: Array<{ destroy(): void }> = [];
afterEach(() => clients.splice(0).forEach((c) => c.destroy()));
const ddb = (options: AwsClientOptions = {}) => {
  const client = documentClient({
    endpoint,
    region: 'eu-west-1',
    credentials,
    retryStrategy: noBackoff(options.maxAttempts),
    connectTimeoutMs: 10_000,
    ...options,
  });
  clients.push(client);
  return client;
};
const get = () => new GetCommand({ TableName: 't', Key: { pk: 'a' } });
const item = (pk: string): Reply => ({ status: 200, body: { Item: { pk: { S: pk } } } });
const error = (status: number, type: string): Reply => ({ status, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `${type} happened` } });

async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('the socket idle timeout per attempt', () => {
  it('against a server that accepts connections and never answers, every attempt times out: a transient TimeoutError after 4 attempts', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const client = ddb({ endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, idleTimeoutMs: 100 });
      const err = await failure(client.send(get()));
      expect(err.name).toBe('TimeoutError');
      expect(err.message).toMatch(/timed out after 100 ms of inactivity/);
      expect(err.$metadata.attempts).toBe(AWS_CALL_LIMITS.dynamodb.maxAttempts);
      // Each attempt on a connection of its own: the one that timed out was destroyed, not pooled.
      expect(sockets).toHaveLength(4);
      expect(isTransient(err)).toBe(true);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('a stalled answer fails its attempt, and the retry on a new connection succeeds', async () => {
    replies = [item('first'), 'stall', item('b')];
    const client = ddb({ idleTimeoutMs: IDLE_MS });
    await client.send(get());
    const out = await client.send(get());
    expect(out.Item).toEqual({ pk: 'b' });
    expect(out.$metadata.attempts).toBe(2);
    // The first call's kept-alive connection carried the stalled attempt; the retry came on another.
    expect(seen[1]!.port).toBe(seen[0]!.port);
    expect(seen[2]!.port).not.toBe(seen[1]!.port);
  });

  it('after a Lambda freeze (all 8 pooled connections silent, new ones answered) the retry opens a new connection, and the next call finds no dead one', async () => {
    const client = ddb({ idleTimeoutMs: IDLE_MS });
    // 8 calls at once, each answered after 50 ms: 8 connections, all kept alive afterwards.
    always = { ...(item('a') as object), delayMs: 50 } as Reply;
    await Promise.all(Array.from({ length: 8 }, () => client.send(get())));
    const pooled = new Set(seen.map((s) => s.port));
    expect(pooled.size).toBe(8);
    always = undefined;
    silentPorts = new Set(pooled);
    seen = [];
    const out = await client.send(get());
    expect(out.$metadata.attempts).toBe(2);
    expect(seen).toHaveLength(2);
    expect(pooled.has(seen[0]!.port)).toBe(true);
    expect(pooled.has(seen[1]!.port)).toBe(false);
    // The timeout dropped the other 7 pooled connections too: the next call goes out once, on a live one.
    const next = await client.send(get());
    expect(next.$metadata.attempts).toBe(1);
    expect(pooled.has(seen[2]!.port)).toBe(false);
    await vi.waitFor(() => expect(new Set(closedPorts.filter((p) => pooled.has(p))).size).toBe(8));
  });

  it("leaves the connections of calls still in flight alone: a call in flight when another call's timeout drops the pool is answered on its connection", async () => {
    const client = ddb({ idleTimeoutMs: IDLE_MS });
    await client.send(get());
    silentPorts = new Set([seen[0]!.port]);
    const events: string[] = [];
    // The first call takes the silent pooled connection, times out and is retried on a new one; the
    // second, sent on another new connection meanwhile, is answered (slowly, never idle) only after that.
    const stalled = client.send(get()).then((out) => (events.push('stalled call done'), out));
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    let release!: () => void;
    replies = [{ ...(item('slow') as object), until: new Promise<void>((r) => (release = r)) } as Reply];
    const inFlight = client.send(get()).then((out) => (events.push('in-flight call answered'), out));
    expect((await stalled).$metadata.attempts).toBe(2);
    release();
    const out = await inFlight;
    expect(out.Item).toEqual({ pk: 'slow' });
    expect(out.$metadata.attempts).toBe(1);
    expect(events).toEqual(['stalled call done', 'in-flight call answered']);
    expect(seen).toHaveLength(4);
  });

  it('keeps a kept-alive connection that was idle between calls longer than the timeout', async () => {
    const client = ddb({ idleTimeoutMs: 1_000 });
    await client.send(get());
    await new Promise((r) => setTimeout(r, 1_500));
    const out = await client.send(get());
    expect(out.$metadata.attempts).toBe(1);
    expect(seen.map((s) => s.port)).toEqual([seen[0]!.port, seen[0]!.port]);
  });
});

describe('the connect timeout', () => {
  it('counts the DNS lookup: a lookup that never answers fails each attempt with a transient TimeoutError', async () => {
    const lookup = dns.lookup;
    const hung: string[] = [];
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, ...rest: unknown[]) => {
      if (hostname === 'dynamodb.hangs.test') return void hung.push(hostname);
      return (lookup as (...args: unknown[]) => void)(hostname, ...rest);
    }) as never);
    const client = ddb({ endpoint: 'http://dynamodb.hangs.test', connectTimeoutMs: 100 });
    const err = await failure(client.send(get()));
    expect(err.name).toBe('TimeoutError');
    expect(err.$metadata.attempts).toBe(4);
    expect(hung).toHaveLength(4);
    expect(isTransient(err)).toBe(true);
  });
});

describe('the deadline of a call', () => {
  it('ends a call whose attempt is still waiting: a transient TimeoutError, its connection closed, no second attempt', async () => {
    always = 'stall';
    const client = ddb({ idleTimeoutMs: 60_000, deadlineMs: 300 });
    const err = await failure(client.send(get()));
    expect(err.name).toBe('TimeoutError');
    expect(err.message).toMatch(/deadline of 300 ms/);
    expect(err.cause?.name).toBe('AbortError');
    expect(isTransient(err)).toBe(true);
    expect(seen).toHaveLength(1);
    await vi.waitFor(() => expect(closedPorts).toContain(seen[0]!.port));
  });

  it('ends a call waiting out its backoff (after throttling the first retry waits up to 1 s), before the next attempt', async () => {
    always = error(400, 'ProvisionedThroughputExceededException');
    // The SDK's standard strategy, with its backoff: with Math.random at 0.99, 990 ms before the retry.
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    const client = documentClient({ endpoint, region: 'eu-west-1', credentials, deadlineMs: 600 });
    clients.push(client);
    const err = await failure(client.send(get()));
    expect(err.name).toBe('TimeoutError');
    expect(isTransient(err)).toBe(true);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toHaveLength(1);
  });

  it('gives every call its own deadline: calls after one that was cut off are answered', async () => {
    replies = ['stall'];
    const client = ddb({ deadlineMs: 1_000 });
    expect((await failure(client.send(get()))).name).toBe('TimeoutError');
    replies = [item('after')];
    expect((await client.send(get())).Item).toEqual({ pk: 'after' });
  });

  it("stays under every function's timeout: each service's deadline leaves room for a timed-out attempt and its retry", () => {
    for (const limits of Object.values(AWS_CALL_LIMITS)) {
      expect(limits.deadlineMs).toBeGreaterThan(limits.idleTimeoutMs + limits.connectTimeoutMs);
      expect(limits.deadlineMs).toBeLessThan(10_000);
    }
  });
});

describe("the SDK's errors, as isTransient and the stores read them", () => {
  it('retries a 500, a throttling 400 and a dropped connection, then succeeds (DynamoDB: 4 attempts)', async () => {
    replies = [error(500, 'InternalServerError'), error(400, 'ProvisionedThroughputExceededException'), 'stall', item('a')];
    const out = await ddb({ idleTimeoutMs: IDLE_MS }).send(get());
    expect(out.$metadata.attempts).toBe(4);
    expect(out.Item).toEqual({ pk: 'a' });
  });

  it('tries ValidationException and ConditionalCheckFailedException once: permanent, named as the service names them', async () => {
    replies = [error(400, 'ValidationException'), error(400, 'ConditionalCheckFailedException')];
    const client = ddb();
    const invalid = await failure(client.send(get()));
    expect(invalid).toMatchObject({ name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
    expect(isTransient(invalid)).toBe(false);
    const failed = await failure(client.send(new PutCommand({ TableName: 't', Item: { pk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' })));
    expect(failed).toMatchObject({ name: 'ConditionalCheckFailedException', $metadata: { attempts: 1 } });
    expect(seen).toHaveLength(2);
  });

  it('gives up after the last attempt with a transient error: a server fault, throttling', async () => {
    always = error(500, 'InternalServerError');
    expect(isTransient(await failure(ddb().send(get())))).toBe(true);
    always = error(400, 'ThrottlingException');
    const throttled = await failure(ddb().send(get()));
    expect(throttled.$metadata.attempts).toBe(4);
    expect(isTransient(throttled)).toBe(true);
  });

  it('Firehose: 3 attempts, the error named from x-amzn-errortype, transient', async () => {
    always = { status: 500, body: { Message: 'Service busy' }, headers: { 'x-amzn-errortype': 'ServiceUnavailableException:http://internal.amazon.com/' } };
    const firehose = firehoseClient({ endpoint, region: 'eu-west-1', credentials, retryStrategy: noBackoff(3), connectTimeoutMs: 10_000 });
    clients.push(firehose);
    const err = await failure(firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: 's', Records: [{ Data: Buffer.from('x') }] })));
    expect(seen.map((s) => s.target)).toEqual(Array(3).fill('Firehose_20150804.PutRecordBatch'));
    expect(err.name).toBe('ServiceUnavailableException');
    expect(isTransient(err)).toBe(true);
  });
});

describe('endpoints: what the SDK resolves, which the hand-written client did not', () => {
  /** The host name a call would reach with these variables set (the lookup fails at once, nothing is sent). */
  async function hostFor(env: Record<string, string>, region: string): Promise<string> {
    const hosts: string[] = [];
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, _options: unknown, callback: (err: Error) => void) => {
      hosts.push(hostname);
      process.nextTick(() => (callback ?? (_options as typeof callback))(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })));
    }) as never);
    vi.stubEnv('AWS_ENDPOINT_URL', '');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', '');
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    try {
      const client = documentClient({ region, credentials, maxAttempts: 1 });
      clients.push(client);
      expect((await failure(client.send(get()))).code).toBe('ENOTFOUND');
      return hosts[0]!;
    } finally {
      vi.unstubAllEnvs();
    }
  }

  it('honours AWS_USE_FIPS_ENDPOINT and AWS_USE_DUALSTACK_ENDPOINT, and the partitions', async () => {
    expect(await hostFor({}, 'eu-west-1')).toBe('dynamodb.eu-west-1.amazonaws.com');
    expect(await hostFor({ AWS_USE_FIPS_ENDPOINT: 'true' }, 'us-east-1')).toBe('dynamodb-fips.us-east-1.amazonaws.com');
    expect(await hostFor({ AWS_USE_DUALSTACK_ENDPOINT: 'true' }, 'eu-west-1')).toBe('dynamodb.eu-west-1.api.aws');
    expect(await hostFor({}, 'cn-north-1')).toBe('dynamodb.cn-north-1.amazonaws.com.cn');
    expect(await hostFor({}, 'us-iso-east-1')).toBe('dynamodb.us-iso-east-1.c2s.ic.gov');
  });

  it('reaches the endpoint AWS_ENDPOINT_URL_DYNAMODB names', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', endpoint);
    try {
      replies = [item('env')];
      const client = documentClient({ region: 'eu-west-1', credentials, connectTimeoutMs: 10_000 });
      clients.push(client);
      expect((await client.send(get())).Item).toEqual({ pk: 'env' });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

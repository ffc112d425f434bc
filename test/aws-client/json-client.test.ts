/**
 * The signed JSON client against a local node:http server standing in for DynamoDB and Firehose:
 * retries like the SDK's standard mode (throttling, 5xx, dropped connections; never other 4xx), errors
 * shaped like the SDK's (what isTransient and the stores read), and where credentials, region and
 * endpoint come from.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DocumentClient, GetCommand, PutCommand } from '../../lambdas/aws-client/dynamodb';
import { resolveEndpoint } from '../../lambdas/aws-client/endpoint';
import { FirehoseClient, PutRecordBatchCommand } from '../../lambdas/aws-client/firehose';
import { resolveCredentials } from '../../lambdas/aws-client/credentials';
import { signRequest } from '../../lambdas/aws-client/sigv4';
import { isTransient } from '../../lambdas/domain/transient-error';

type Reply = { status: number; body: object; headers?: Record<string, string> } | 'drop' | 'stall';
interface Seen {
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: which connection the request came on. */
  port: number | undefined;
}

let server: Server;
let endpoint: string;
let replies: Reply[] = [];
let always: Reply | undefined;
let seen: Seen[] = [];

const error = (status: number, type: string, extra: object = {}): Reply => ({
  status,
  body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `${type} happened`, ...extra },
  headers: { 'x-amzn-requestid': `req-${seen.length}` },
});

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body, port: req.socket.remotePort });
      const reply = replies.shift() ?? always ?? { status: 200, body: {} };
      if (reply === 'drop') return void req.socket.destroy();
      if (reply === 'stall') return;
      res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
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

  it('sends what it signed: the server recomputes the same signature from the request it received', async () => {
    replies = [{ status: 200, body: {} }];
    const client = ddb();
    await client.send(get);
    const { headers, body } = seen[0]!;
    const date = String(headers['x-amz-date']);
    const when = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
    const signedNames = /SignedHeaders=([^,]+)/.exec(String(headers.authorization))![1]!.split(';');
    const unsigned = Object.fromEntries(
      signedNames.filter((n) => !['x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256'].includes(n)).map((n) => [n, String(headers[n])]),
    );
    const again = signRequest({ method: 'POST', path: '/', headers: unsigned, body }, { credentials, region: 'eu-west-1', service: 'dynamodb', date: when });
    expect(again.authorization).toBe(headers.authorization);
    expect(headers['x-amz-security-token']).toBe('TOKEN');
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

  it('retries a 429 (throttling by status) and waits between attempts when not scaled down', async () => {
    replies = [{ status: 429, body: {} }];
    const client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, backoffScale: 0.01 });
    const out = await client.send(get);
    expect(seen).toHaveLength(2);
    expect(out.$metadata.attempts).toBe(2);
    client.destroy();
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
    const saved = { ...process.env };
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
      process.env = saved;
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

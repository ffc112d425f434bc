/**
 * How Tally configures the AWS SDK's DynamoDB and Firehose clients. The SDK does the protocol:
 * signing, endpoints (FIPS, dual-stack and every partition), credentials, its standard retry mode
 * (which failures, backoff, retry quota) and the user agent. Tally sets only the limits of a call
 * (docs/decisions/ingestion-cold-start.md):
 *
 * - maxAttempts: the SDK's attempts per call, written out so the deadline below can be checked against them;
 * - the request handler's connect timeout (DNS lookup and TCP connect of a new connection) and socket
 *   idle timeout (an attempt that goes that long without a byte on its connection fails with a
 *   TimeoutError, which the SDK retries): a kept-alive socket that died while the Lambda was frozen
 *   otherwise stalls the call until the function's timeout;
 * - one deadline per call, all attempts and waits included, inside the function's timeout (withDeadline).
 *
 * The figures are lambdas/contract/aws-call-limits.ts (shared with the stack, which keeps every
 * function's timeout above the deadlines).
 */
import http from 'node:http';
import https from 'node:https';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { AWS_CALL_LIMITS, type CallLimits } from '../contract/aws-call-limits';

/** What a client is built from: the limits of its service, and where it goes (unset: what Lambda sets). */
export interface AwsClientOptions extends Partial<CallLimits> {
  region?: string;
  /** The local stand-ins, a test's proxy; unset, the SDK's own resolution (AWS_ENDPOINT_URL_<SERVICE> included). */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** The SDK's retry strategy (tests: one without backoff); unset, its standard mode. */
  retryStrategy?: DynamoDBClientConfig['retryStrategy'];
}

/** The client configuration both services share: the SDK's own options, set from the limits. */
export function sdkClientConfig(limits: CallLimits, options: AwsClientOptions) {
  const { region, endpoint, credentials, retryStrategy } = options;
  return {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(credentials ? { credentials } : {}),
    ...(retryStrategy ? { retryStrategy } : {}),
    maxAttempts: limits.maxAttempts,
    requestHandler: new PoolDroppingHandler(limits),
  };
}

/** The service's limits with the options' overrides. */
export function callLimits(service: keyof typeof AWS_CALL_LIMITS, options: AwsClientOptions): CallLimits {
  const { maxAttempts, connectTimeoutMs, idleTimeoutMs, deadlineMs } = options;
  return { ...AWS_CALL_LIMITS[service], ...definedOnly({ maxAttempts, connectTimeoutMs, idleTimeoutMs, deadlineMs }) };
}

const definedOnly = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * The SDK's NodeHttpHandler (keep-alive agents of 50 sockets, as its defaults) with one addition: an
 * attempt that failed with a TimeoutError also destroys the idle sockets the agents keep. After a
 * Lambda freeze every pooled socket may be half-open, and each retry would take the next dead one until
 * all attempts had timed out; with the pool emptied the retry opens a new connection. Sockets of calls
 * in flight are not in the pool and are left alone. (The SDK also names a reset or broken connection
 * a TimeoutError; the pool is dropped then too, and refills with the next calls.)
 */
class PoolDroppingHandler extends NodeHttpHandler {
  private readonly agents: Array<http.Agent | https.Agent>;

  constructor(limits: CallLimits) {
    const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 50 });
    const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 50 });
    super({ connectionTimeout: limits.connectTimeoutMs, socketTimeout: limits.idleTimeoutMs, httpAgent, httpsAgent });
    this.agents = [httpAgent, httpsAgent];
  }

  override async handle(...args: Parameters<NodeHttpHandler['handle']>): ReturnType<NodeHttpHandler['handle']> {
    try {
      return await super.handle(...args);
    } catch (err) {
      if ((err as { name?: unknown } | undefined)?.name === 'TimeoutError') for (const agent of this.agents) destroyIdleSockets(agent);
      throw err;
    }
  }
}

function destroyIdleSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of [...(sockets ?? [])]) socket.destroy();
}

type Sends = { send(command: never, options?: { abortSignal?: AbortSignal }): Promise<unknown> };

/**
 * Gives every call of the client a deadline: the SDK's abort signal for the call (it stops the attempt
 * in flight and any backoff wait), aborted deadlineMs after send. A call cut off so fails with a
 * TimeoutError (transient: answered 503, and a write it carried may have landed, as after any
 * timeout). The client's class method is looked up on each call, so whatever wraps it (the cost meter,
 * a test's mock) still sees every call. An AbortController and a timer cleared on the answer cost less
 * CPU per call than AbortSignal.timeout (about 5% of a DynamoDB call against 14%, measured alternating).
 */
export function withDeadline<C extends Sends>(client: C, deadlineMs: number): C {
  const proto = Object.getPrototypeOf(client) as Sends;
  client.send = function send(this: C, command: never, options?: { abortSignal?: AbortSignal }) {
    if (options?.abortSignal) return proto.send.call(this, command, options);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    return Promise.resolve(proto.send.call(this, command, { ...options, abortSignal: controller.signal })).then(
      (out) => {
        clearTimeout(timer);
        return out;
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!controller.signal.aborted) throw err;
        throw Object.assign(new Error(`No answer within the call's deadline of ${deadlineMs} ms`), {
          name: 'TimeoutError',
          cause: err,
          $metadata: (err as { $metadata?: unknown } | undefined)?.$metadata,
        });
      },
    );
  } as C['send'];
  return client;
}

/**
 * One AWS JSON-protocol call (DynamoDB, Firehose): a SigV4-signed POST over node:http(s) with a
 * keep-alive agent (50 sockets, as the SDK), retried like the SDK's standard mode: failures isRetryable
 * accepts (the SDK's rule: throttling, 500/502/503/504, socket and DNS failures, timeouts) are sent
 * again, freshly signed, after backoffDelayMs, up to the service's attempts; any other failure
 * (ValidationException, ConditionalCheckFailedException, a 501) is thrown at once, and so is a
 * retryable one when the client's retry quota (retry-quota.ts, the SDK's token bucket) cannot pay.
 * Each attempt fails with a TimeoutError after the service's idle time without a byte on its connection
 * (from the DNS lookup on; once the body is handed to the kernel, plus a drain allowance per MiB), and
 * the agent's idle pooled sockets are dropped with it, so the retry opens a new connection.
 * docs/decisions/ingestion-cold-start.md says why this replaces the SDK on these two services, and what
 * it leaves out.
 */
import http from 'node:http';
import https from 'node:https';
import { backoffDelayMs, THROTTLING_BACKOFF_BASE_MS } from '../domain/retry-backoff';
import { RetryQuota } from '../domain/retry-quota';
import { isRetryable, isThrottling } from '../domain/transient-error';
import { resolveCredentials, type Credentials } from './credentials';
import { resolveEndpoint, type ResolvedEndpoint } from './endpoint';
import { serviceError, type ResponseMetadata } from './service-error';
import { signRequest } from './sigv4';

export interface AwsService {
  /** Endpoint prefix and signing name: dynamodb, firehose. */
  name: string;
  /** X-Amz-Target's prefix: DynamoDB_20120810, Firehose_20150804. */
  targetPrefix: string;
  /** application/x-amz-json-<version>. */
  jsonVersion: '1.0' | '1.1';
  /** The SDK's defaults for the service: DynamoDB 4 attempts from 25 ms, others 3 from 50 ms. */
  maxAttempts: number;
  backoffBaseMs: number;
  /**
   * How long an attempt may go without a byte on its connection before it fails with a TimeoutError
   * (retryable, on a new connection). A kept-alive socket that died while the Lambda was frozen
   * otherwise stalls the call until the Lambda timeout.
   */
  attemptTimeoutMs: number;
}

export interface AwsClientOptions {
  region?: string;
  endpoint?: string;
  credentials?: Credentials;
  /** Overrides the service's attempts (1: no retries). */
  maxAttempts?: number;
  /** Scales every backoff (tests: 0 for no waiting). */
  backoffScale?: number;
  /** Overrides the service's idle timeout per attempt. */
  attemptTimeoutMs?: number;
}

/** A call's answer as JSON.parse gives it (the services' members are not modelled here), with the SDK's $metadata. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Output = Record<string, any> & { $metadata: ResponseMetadata };

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export class AwsJsonClient {
  private resolved?: { endpoint: ResolvedEndpoint; credentials: Credentials; agent: http.Agent; host: string };
  /** One bucket per client, as the SDK: sustained failures soon stop being retried. */
  readonly retryQuota = new RetryQuota();

  constructor(
    private readonly service: AwsService,
    private readonly options: AwsClientOptions = {},
  ) {}

  /** Endpoint, region and credentials are read at the first call, so a missing one fails that call with its name. */
  private setup() {
    if (!this.resolved) {
      const endpoint = resolveEndpoint(this.service.name, this.options);
      const credentials = resolveCredentials(this.options.credentials);
      const secure = endpoint.url.protocol === 'https:';
      const agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 50 }) : new http.Agent({ keepAlive: true, maxSockets: 50 });
      this.resolved = { endpoint, credentials, agent, host: endpoint.url.host };
    }
    return this.resolved;
  }

  async call(operation: string, input: unknown): Promise<Output> {
    const body = JSON.stringify(input);
    const maxAttempts = this.options.maxAttempts ?? this.service.maxAttempts;
    let totalRetryDelay = 0;
    let lastRetryCost: number | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.send(operation, body);
        const metadata = { httpStatusCode: answer.status, requestId: requestIdOf(answer.headers), attempts: attempt, totalRetryDelay };
        if (answer.status >= 300) throw Object.assign(serviceError(answer.status, answer.headers, answer.text), { $metadata: metadata });
        const out = (answer.text ? JSON.parse(answer.text) : {}) as Output;
        out.$metadata = metadata;
        this.retryQuota.succeeded(lastRetryCost);
        return out;
      } catch (err) {
        const e = err as { $metadata?: Partial<ResponseMetadata> };
        if (e && typeof e === 'object') e.$metadata = { ...e.$metadata, attempts: attempt, totalRetryDelay };
        if (attempt >= maxAttempts || !isRetryable(err)) throw err;
        const throttling = isThrottling(err);
        lastRetryCost = this.retryQuota.take(throttling);
        if (lastRetryCost === undefined) throw err;
        const base = throttling ? THROTTLING_BACKOFF_BASE_MS : this.service.backoffBaseMs;
        const delay = backoffDelayMs(attempt - 1, base) * (this.options.backoffScale ?? 1);
        totalRetryDelay += delay;
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private send(operation: string, body: string): Promise<Answer> {
    const { endpoint, credentials, agent, host } = this.setup();
    const path = endpoint.url.pathname || '/';
    const headers = signRequest(
      {
        method: 'POST',
        path,
        headers: {
          'content-type': `application/x-amz-json-${this.service.jsonVersion}`,
          'content-length': String(Buffer.byteLength(body)),
          host,
          'x-amz-target': `${this.service.targetPrefix}.${operation}`,
        },
        body,
      },
      { credentials, region: endpoint.region, service: this.service.name, date: new Date() },
    );
    const transport = endpoint.url.protocol === 'https:' ? https : http;
    const idleMs = this.options.attemptTimeoutMs ?? this.service.attemptTimeoutMs;
    let waitMs = idleMs;
    return new Promise<Answer>((resolve, reject) => {
      // timeout: the socket's idle timer, armed when the socket is created (so the DNS lookup and the
      // connect count) or taken from the pool, and reset by every byte read or written.
      const req = transport.request(
        {
          agent,
          method: 'POST',
          hostname: endpoint.url.hostname.replace(/^\[|\]$/g, ''),
          port: endpoint.url.port || undefined,
          path,
          headers,
          timeout: idleMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('aborted', () => reject(Object.assign(new Error('The connection closed before the response ended'), { code: 'ECONNRESET' })));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.on('timeout', () => {
        const err = Object.assign(new Error(`No answer from ${this.service.name} after ${waitMs} ms without a byte on the connection`), {
          name: 'TimeoutError',
        });
        reject(err);
        // This attempt's socket is destroyed, and so are the pooled idle ones: after a Lambda freeze they
        // are all half-open, and the retry would otherwise take the next dead one. Sockets of calls in
        // flight are not in the pool and are left alone.
        req.destroy(err);
        destroyFreeSockets(agent);
      });
      // Node counts a write in progress as activity, but not what the kernel's socket buffers (several MB
      // on a busy connection) still hold after the last write was handed over: that leaves at the
      // receiver's pace out of sight. From then until the answer, the attempt may take longer by the time
      // those bytes need at DRAIN_BYTES_PER_MS.
      const size = Buffer.byteLength(body);
      req.on('finish', () => {
        waitMs = idleMs + Math.floor(size / DRAIN_BYTES_PER_MS);
        req.setTimeout(waitMs);
      });
      req.end(body);
    });
  }

  /** Closes the kept-alive sockets. */
  destroy(): void {
    this.resolved?.agent.destroy();
  }
}

/** 4 MiB/s: a floor far below an in-region endpoint; Firehose's largest batch (4 MiB, 5.6 MB as base64) gets 1.4 s more. */
const DRAIN_BYTES_PER_MS = (4 * 1024 * 1024) / 1000;

function destroyFreeSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of [...(sockets ?? [])]) socket.destroy();
}

function requestIdOf(headers: http.IncomingHttpHeaders): string | undefined {
  const id = headers['x-amzn-requestid'] ?? headers['x-amz-request-id'];
  return typeof id === 'string' ? id : undefined;
}

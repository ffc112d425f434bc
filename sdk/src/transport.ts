/** HTTP to the Tally API: the metadata headers, gzip, timeouts, and what each answer means. */
import { version } from '../package.json';
import { retryAfterMs } from './backoff';
import { GZIP_THRESHOLD_BYTES, REQUEST_TIMEOUT_MS } from './defaults';
import { gzip } from './gzip';
import type { QueuedEvent } from './queue';

export const SDK_NAME = 'tally-js';
export const SDK_VERSION: string = version;

export type SendResult =
  | { kind: 'ok' }
  /** 400: the server named the failing events (indexes), or rejected the body as a whole (undefined). */
  | { kind: 'invalid'; indexes: number[] | undefined }
  | { kind: 'auth'; status: number }
  | { kind: 'too_large' }
  /** Network error, timeout, 429, 5xx and anything else: try again later, not before retryAfter ms. */
  | { kind: 'retry'; status?: number; retryAfter?: number | undefined };

export interface TransportConfig {
  apiKey: string;
  baseURL: string;
  bundleId: string | undefined;
  platform: string | undefined;
  platformVersion: string | undefined;
  context: Record<string, string>;
}

const encoder = new TextEncoder();

export class Transport {
  #base: string;

  readonly #config: TransportConfig;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#base = config.baseURL.replace(/\/+$/, '');
  }

  #headers(): Record<string, string> {
    const c = this.#config;
    const h: Record<string, string> = {
      Authorization: `Bearer ${c.apiKey}`,
      'X-Tally-SDK': SDK_NAME,
      'X-Tally-SDK-Version': SDK_VERSION,
    };
    if (c.platform) h['X-Tally-Platform'] = c.platform;
    if (c.platformVersion) h['X-Tally-Platform-Version'] = c.platformVersion;
    if (c.bundleId) h['X-Tally-Bundle-ID'] = c.bundleId;
    return h;
  }

  /** The JSON body of a batch, also used to measure what fits in a keepalive request. */
  body(events: QueuedEvent[]): Uint8Array {
    return encoder.encode(JSON.stringify({ events, context: this.#config.context }));
  }

  /**
   * Posts a batch. A keepalive request (page being hidden) is sent uncompressed: compression is
   * asynchronous and the page may be gone before it finishes.
   */
  async send(events: QueuedEvent[], keepalive = false): Promise<SendResult> {
    let body = this.body(events);
    const headers: Record<string, string> = { ...this.#headers(), 'Content-Type': 'application/json' };
    if (!keepalive && body.length > GZIP_THRESHOLD_BYTES) {
      const zipped = await gzip(body);
      if (zipped) {
        body = zipped;
        headers['Content-Encoding'] = 'gzip';
      }
    }
    const res = await this.#request('/v1/events', { method: 'POST', headers, body: body as BodyInit, keepalive });
    if (!res) return { kind: 'retry' };
    const { status } = res;
    const text = await res.text().catch(() => '');
    if (status >= 200 && status < 300) return { kind: 'ok' };
    if (status === 400) return { kind: 'invalid', indexes: detailIndexes(text) };
    if (status === 401 || status === 403) return { kind: 'auth', status };
    if (status === 413) return { kind: 'too_large' };
    return { kind: 'retry', status, retryAfter: retryAfterMs(res.headers.get('Retry-After')) };
  }

  /** GET a JSON document; undefined on any failure, with the status when there was an answer. */
  async getJson(path: string): Promise<{ status: number | undefined; json: unknown }> {
    const res = await this.#request(path, { headers: this.#headers() });
    if (!res) return { status: undefined, json: undefined };
    const json: unknown = await res.json().catch(() => undefined);
    return { status: res.status, json: res.ok ? json : undefined };
  }

  /** fetch with a timeout; undefined on a network error or timeout. */
  async #request(path: string, init: RequestInit): Promise<Response | undefined> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
    try {
      return await fetch(this.#base + path, { ...init, signal: abort.signal });
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}

function detailIndexes(text: string): number[] | undefined {
  try {
    const details = (JSON.parse(text) as { details?: unknown }).details;
    if (!Array.isArray(details)) return undefined;
    const indexes = details.map((d: { index?: unknown }) => d?.index).filter((i): i is number => typeof i === 'number');
    return indexes.length ? indexes : undefined;
  } catch {
    return undefined;
  }
}

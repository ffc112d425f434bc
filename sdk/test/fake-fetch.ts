/** A scripted stand-in for fetch: records every request (gunzipped, parsed) and answers as told. */
import { gunzipSync } from 'node:zlib';
import { vi } from 'vitest';
import type { Logger, PersistenceAdapter } from '../src/types';

export interface Sent {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: any;
  keepalive: boolean;
  at: number;
}

export type Answer = Response | 'network-error';

export const noContent = () => new Response(null, { status: 204 });
export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** Events get 204 and experiments an empty answer unless `answer` says otherwise. */
export function fakeFetch(answer: (req: Sent) => Answer | undefined = () => undefined) {
  const sent: Sent[] = [];
  const fn = vi.fn(async (url: string | URL, init: RequestInit = {}) => {
    const headers = { ...(init.headers as Record<string, string>) };
    let raw = init.body as Uint8Array | undefined;
    if (raw && headers['Content-Encoding'] === 'gzip') raw = gunzipSync(raw);
    const req: Sent = {
      url: new URL(String(url)),
      method: init.method ?? 'GET',
      headers,
      body: raw ? JSON.parse(Buffer.from(raw).toString('utf8')) : undefined,
      keepalive: init.keepalive === true,
      at: Date.now(),
    };
    sent.push(req);
    const a = answer(req);
    if (a === 'network-error') throw new TypeError('fetch failed');
    if (a) return a;
    if (req.url.pathname === '/v1/experiments') return jsonResponse(200, { assigned_variants: {} });
    if (req.url.pathname === '/v1/experiments/configs') return jsonResponse(200, { experiments: [] });
    return noContent();
  });
  vi.stubGlobal('fetch', fn);
  const posts = () => sent.filter((r) => r.url.pathname === '/v1/events');
  return {
    sent,
    posts,
    /** Every event of every POST, in order (retries included). */
    events: () => posts().flatMap((r) => r.body.events as any[]),
    /**
     * The events once each by event_id, as the server stores them: clients sharing one storage (a
     * reload, two tabs) may both post a persisted event.
     */
    delivered: () => [
      ...new Map(
        posts()
          .flatMap((r) => r.body.events as any[])
          .map((e) => [e.event_id, e]),
      ).values(),
    ],
  };
}

export function fakeLogger() {
  return { debug: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;
}

/** A Map-backed adapter that outlives a client, as localStorage outlives a page. */
export function sharedStorage(): PersistenceAdapter & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

export const BASE = 'http://tally.test';

/** Lets pending promise callbacks run, with fake timers installed. */
export const settle = () => vi.advanceTimersByTimeAsync(0);

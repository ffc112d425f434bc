/**
 * An insight query's ID: its cache key (docs/decisions/insights.md, "Cache"). The same query text over
 * the same data watermark always gives the same answer, so the two name the answer: the first 32 hex
 * digits (128 bits) of SHA-256 over both. Also the basis of Athena's ClientRequestToken (32 to 128
 * characters), so a start repeated after a lost answer does not run the query twice.
 */
import { hash } from 'node:crypto';

export function insightQueryId(sql: string, dataThrough: string): string {
  return hash('sha256', `${dataThrough}\n${sql}`, 'hex').slice(0, 32);
}

/**
 * How long a query, and so its cached answer and its poll URL, is kept: past it the query is gone
 * (a poll answers 404, the same definition runs anew). Athena's result files must outlive it
 * (`athenaResultsExpiration`, checked at synth), and the local engine deletes its result files a day
 * after it.
 */
export const INSIGHT_QUERY_TTL_DAYS = 7;

/** When a query created at `createdAt` (ISO 8601) expires, in epoch seconds (the table's TTL attribute). */
export function insightQueryExpiresAt(createdAt: string): number {
  return Math.floor(Date.parse(createdAt) / 1000) + INSIGHT_QUERY_TTL_DAYS * 86_400;
}

/** The query IDs this function makes: anything else names no query (404 without a read). */
export const QUERY_ID_SHAPE = /^[0-9a-f]{32}$/;

/** The engine's idempotency token of a query's nth start (1, 2, ... after failures). */
export function startToken(queryId: string, attempt: number): string {
  return attempt <= 1 ? queryId : `${queryId}-${attempt}`;
}

/**
 * The arrival watermark at `nowMs`: `allowanceMs` before it (how long the raw stream may take to
 * deliver an event), rounded down to `stepMs`, as ISO 8601 UTC. Rounding makes requests within one
 * step share the watermark, and so the cached answer.
 */
export function arrivalWatermark(nowMs: number, allowanceMs: number, stepMs: number): string {
  const at = nowMs - allowanceMs;
  return new Date(at - (((at % stepMs) + stepMs) % stepMs)).toISOString();
}

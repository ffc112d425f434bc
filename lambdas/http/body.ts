/**
 * Turns a request body into a JSON value, refusing anything that could hurt the service:
 * oversized bodies, gzip bombs, invalid UTF-8, invalid JSON, deep nesting and __proto__ keys.
 */
import { gunzipSync } from 'node:zlib';
import { LIMITS } from '../domain/limits';
import { ApiError, invalidPayload, tooLarge } from './api-error';
import { header, type HttpEvent } from './event';

const JSON_TYPES = /^(application\/(json|[\w.+-]+\+json)|text\/plain)$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function rawBody(event: HttpEvent): Buffer {
  if (event.body == null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

export function parseJsonBody(event: HttpEvent): unknown {
  const raw = rawBody(event);
  if (raw.length > LIMITS.maxBodyBytes) {
    throw tooLarge(`Request body is ${raw.length} bytes; the limit is ${LIMITS.maxBodyBytes} bytes (1 MiB). Send smaller batches.`);
  }
  checkContentType(header(event, 'content-type'));
  const bytes = decompress(raw, header(event, 'content-encoding'));
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidPayload('body is not valid UTF-8');
  }
  if (text.trim() === '') throw invalidPayload('body is empty; send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidPayload(`body is not valid JSON (${(err as Error).message})`);
  }
  checkShape(value);
  return value;
}

function checkContentType(contentType: string | undefined): void {
  // A missing Content-Type is read as JSON; text/plain is what navigator.sendBeacon sends.
  if (contentType === undefined) return;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (!JSON_TYPES.test(mediaType)) {
    throw new ApiError(415, `Unsupported Content-Type "${mediaType}"; send application/json`);
  }
}

function decompress(raw: Buffer, encoding: string | undefined): Buffer {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  if (enc === 'identity' || enc === '') return raw;
  if (enc !== 'gzip' && enc !== 'x-gzip') {
    throw new ApiError(415, `Unsupported Content-Encoding "${enc}"; send gzip or no encoding`);
  }
  try {
    return gunzipSync(raw, { maxOutputLength: LIMITS.maxDecompressedBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge(`Decompressed body exceeds ${LIMITS.maxDecompressedBytes} bytes (5 MiB); send smaller batches`);
    }
    throw invalidPayload('body is not valid gzip data (Content-Encoding: gzip was sent)');
  }
}

/** Iterative walk: a depth check must not itself overflow the stack. Two stacks, so no pair is allocated per value. */
function checkShape(root: unknown): void {
  const values: unknown[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > LIMITS.maxJsonDepth) {
      throw invalidPayload(`JSON is nested deeper than ${LIMITS.maxJsonDepth} levels`);
    }
    if (Array.isArray(value)) {
      for (const v of value) {
        values.push(v);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in value) {
      if (key === '__proto__') throw invalidPayload('the key "__proto__" is not allowed');
      values.push((value as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
}

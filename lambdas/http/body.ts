/**
 * Turns a request body into a JSON value, refusing anything that could hurt the service:
 * oversized bodies, gzip bombs, invalid UTF-8, invalid JSON, deep nesting, too many values or
 * distinct keys, and __proto__ keys.
 *
 * A hostile body costs little and holds up no other request (docs/api.md, "Limits"):
 *  - a body of at most PARSE_AT_ONCE_BYTES (after decompression) is parsed at once: JSON.parse cannot
 *    spend long on so few bytes, and the common case (an SDK's batch) pays for nothing more;
 *  - a larger one is scanned for its depth, values and distinct keys (domain/json-shape.ts) before
 *    JSON.parse builds anything, and a gzip body is inflated in slices on zlib's thread pool, each
 *    slice scanned as it comes: inflating stops at the first slice over a limit, so a few KB that
 *    inflate to 5 MB of brackets are refused after the first slice, and the event loop serves other
 *    requests between slices.
 */
import { createGunzip, gunzipSync } from 'node:zlib';
import { JsonShapeScan, type ShapeRefusal } from '../domain/json-shape';
import { LIMITS } from '../domain/limits';
import { ApiError, invalidPayload, tooLarge } from './api-error';
import { header, type HttpEvent } from './event';

/**
 * Bodies up to this size, after decompression, skip the scan: JSON.parse of 16 KiB took 0.1-1.4 ms
 * whatever its shape (nested brackets, distinct keys; a loaded 2-core machine), and an SDK's default 50-event batch
 * is about 11 KB. A gzip body this small is also inflated synchronously: handing it to the thread pool
 * costs more than inflating it.
 */
export const PARSE_AT_ONCE_BYTES = 16 * 1024;
/** The slices a larger gzip body is inflated in. */
const INFLATE_SLICE_BYTES = 64 * 1024;

const JSON_TYPES = /^(application\/(json|[\w.+-]+\+json)|text\/plain)$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function rawBody(event: HttpEvent): Buffer {
  if (event.body == null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

export async function parseJsonBody(event: HttpEvent): Promise<unknown> {
  const raw = rawBody(event);
  if (raw.length > LIMITS.maxBodyBytes) {
    throw tooLarge(`Request body is ${raw.length} bytes; the limit is ${LIMITS.maxBodyBytes} bytes (1 MiB). Send smaller batches.`);
  }
  checkContentType(header(event, 'content-type'));
  const bytes = await readBytes(raw, header(event, 'content-encoding'));
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

/** The body's bytes, decompressed; one over PARSE_AT_ONCE_BYTES is scanned before it is returned. */
async function readBytes(raw: Buffer, encoding: string | undefined): Promise<Buffer> {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  if (enc === 'identity' || enc === '') {
    if (raw.length > PARSE_AT_ONCE_BYTES) refuse(scanner().write(raw));
    return raw;
  }
  if (enc !== 'gzip' && enc !== 'x-gzip') {
    throw new ApiError(415, `Unsupported Content-Encoding "${enc}"; send gzip or no encoding`);
  }
  if (raw.length <= PARSE_AT_ONCE_BYTES) {
    try {
      return gunzipSync(raw, { maxOutputLength: PARSE_AT_ONCE_BYTES });
    } catch (err) {
      // Larger than that once inflated: inflated again below, in slices, scanned.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw notGzip();
    }
  }
  return inflateScanned(raw);
}

/**
 * Inflates a gzip body in slices on zlib's thread pool, scanning each as it comes, and stops at the
 * first slice past the decompressed-size limit or a shape limit: nothing past it is inflated or kept.
 */
function inflateScanned(raw: Buffer): Promise<Buffer> {
  const scan = scanner();
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip({ chunkSize: INFLATE_SLICE_BYTES });
    const slices: Buffer[] = [];
    let size = 0;
    let settled = false;
    const stop = (err: ApiError) => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      reject(err);
    };
    gunzip.on('data', (slice: Buffer) => {
      if (settled) return;
      size += slice.length;
      if (size > LIMITS.maxDecompressedBytes) return stop(decompressedTooLarge());
      const refusal = scan.write(slice);
      if (refusal) return stop(shapeError(refusal));
      slices.push(slice);
    });
    gunzip.on('error', () => stop(notGzip()));
    gunzip.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(slices, size));
    });
    gunzip.end(raw);
  });
}

const scanner = () => new JsonShapeScan({ maxDepth: LIMITS.maxJsonDepth, maxValues: LIMITS.maxJsonValues, maxKeys: LIMITS.maxJsonKeys });

function refuse(refusal: ShapeRefusal | undefined): void {
  if (refusal) throw shapeError(refusal);
}

const deepError = () => invalidPayload(`JSON is nested deeper than ${LIMITS.maxJsonDepth} levels`);

function shapeError(refusal: ShapeRefusal): ApiError {
  if (refusal === 'depth') return deepError();
  if (refusal === 'keys') return tooLarge(`Body holds more than ${LIMITS.maxJsonKeys} distinct object keys; send smaller batches`);
  return tooLarge(`Body holds more than ${LIMITS.maxJsonValues} JSON values (array elements and object members); send smaller batches`);
}

const decompressedTooLarge = () => tooLarge(`Decompressed body exceeds ${LIMITS.maxDecompressedBytes} bytes (5 MiB); send smaller batches`);
const notGzip = () => invalidPayload('body is not valid gzip data (Content-Encoding: gzip was sent)');

/**
 * Depth (for bodies not scanned) and __proto__ keys, on the parsed value. Iterative: a depth check must
 * not itself overflow the stack. Two stacks, so no pair is allocated per value.
 */
function checkShape(root: unknown): void {
  const values: unknown[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > LIMITS.maxJsonDepth) throw deepError();
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

/**
 * Reading request bodies on the local server without letting a client hold a socket or memory:
 *  - a body is read only after the request was authenticated from its headers (server.ts);
 *  - it must arrive within a deadline (a slow-loris body gets 408), and is never buffered past the limit;
 *  - a request answered before its body was read (401, 413, 404, …) has the rest of its body
 *    discarded, up to a bound, so the client finishes sending and reads the answer. Closing the
 *    socket while the client is still sending makes its TCP stack reset the connection, and a normal
 *    client (fetch, curl) then reports a broken pipe instead of the status it was sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpResult } from '../http/event';
import { writeResult } from './gateway-event';

export interface RequestTimeouts {
  /** Until the request's headers are complete (Node's headersTimeout). */
  headersMs: number;
  /** Until the body is complete, counted from when the server starts reading it. */
  bodyMs: number;
  /** How long the rest of a body that is not wanted is read and thrown away before the connection is cut. */
  discardMs: number;
}

export const DEFAULT_REQUEST_TIMEOUTS: RequestTimeouts = { headersMs: 10_000, bodyMs: 10_000, discardMs: 5_000 };

/** How much of a body that is not wanted is read and thrown away before the connection is cut instead. */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;

export type BodyOutcome = Buffer | 'too_large' | 'too_slow' | 'aborted';

/** The body, or why there is none; stops buffering as soon as it exceeds the limit. */
export function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large');
  // The client may have gone while the request was being authenticated.
  if (req.destroyed && !req.complete) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: BodyOutcome) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      req.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish('too_large');
      else chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks));
    const onClose = () => finish(req.complete ? Buffer.concat(chunks) : 'aborted');
    const timer = setTimeout(() => finish('too_slow'), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('close', onClose);
    req.resume();
  });
}

/**
 * Sends an answer to a request whose body was not (fully) read, then discards the rest of the body
 * within DISCARD_MAX_BYTES and timeouts.discardMs; past either the connection is cut. `close` asks the
 * client to open a new connection (after a slow body, whose remainder is not waited for).
 */
export function answerUnread(
  req: IncomingMessage,
  res: ServerResponse,
  result: HttpResult,
  timeouts: RequestTimeouts,
  options: { close?: boolean } = {},
): void {
  if (options.close) {
    writeResult(res, { ...result, headers: { ...result.headers, Connection: 'close' } });
    return;
  }
  writeResult(res, result);
  if (req.complete) return;
  let left = DISCARD_MAX_BYTES;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, timeouts.discardMs).unref();
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) cut();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/**
 * Large event batches are stored one at a time on the local server (docs/decisions/local-stand-ins.md,
 * "Large batches").
 *
 * On AWS every request runs in a Lambda of its own, with its own CPU and its own 10 s, against
 * DynamoDB, which serves them all at once. Locally every request shares one process and one dynalite
 * thread doing about 1,000 conditional writes a second: a full 1,000-event batch is about 2,000 calls
 * (a claim per event, the first sight of each new ID), one to three seconds alone. Four at once each
 * took four times as long, and longer still (more garbage, more waiting per call), so all four ran out
 * of their 10 s together and answered 503. Here a large batch waits for the one before it to finish,
 * and its invocation (with its time budget, as a Lambda's starts with its invocation) starts only then.
 * Small batches are not held: they never wait behind each other, as on AWS.
 *
 * Nothing about storing changes: the handler, its claims, its commit and its answers are the same code;
 * only when it starts.
 */

/**
 * A request body larger than this, as JSON (inflated, for a gzip body), is a large batch: about 300
 * typical events (about 225 bytes each), or 1,000 small ones. A 20-event batch is about 4.5 KB.
 */
export const LARGE_BATCH_BYTES = 64 * 1024;

/**
 * How long a large batch may wait for its turn: API Gateway's integration timeout (29 s) less the
 * functions' 10 s, so a request is answered within the time API Gateway gives one on AWS.
 */
export const LARGE_BATCH_WAIT_MS = 29_000 - 10_000;

/**
 * The size of the JSON a body holds: for gzip, the size its trailer declares (ISIZE, the inflated
 * length modulo 2^32, RFC 1952); a body that is not gzip at all gets its own length. Only a weight for
 * scheduling: the handler checks the body itself, whatever it declares.
 */
export function payloadBytes(body: Buffer, contentEncoding: string | undefined): number {
  const gzip = /^\s*(x-)?gzip\s*$/i.test(contentEncoding ?? '');
  if (!gzip || body.length < 18) return body.length;
  return body.readUInt32LE(body.length - 4);
}

/** One large batch at a time, in arrival order. */
export class LargeBatchLane {
  private busy = false;
  private readonly waiting: Array<{ start: () => void; timer: NodeJS.Timeout }> = [];

  constructor(private readonly maxWaitMs: number = LARGE_BATCH_WAIT_MS) {}

  /**
   * Runs `invoke` when no other large batch is being stored; 'timed_out' (invoke never called) when its
   * turn did not come within maxWaitMs.
   */
  async run<T>(invoke: () => Promise<T>): Promise<T | 'timed_out'> {
    if (this.busy) {
      const started = await new Promise<boolean>((resolve) => {
        const entry = {
          start: () => resolve(true),
          timer: setTimeout(() => {
            this.waiting.splice(this.waiting.indexOf(entry), 1);
            resolve(false);
          }, this.maxWaitMs),
        };
        this.waiting.push(entry);
      });
      if (!started) return 'timed_out';
    }
    this.busy = true;
    try {
      return await invoke();
    } finally {
      const next = this.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.start();
      } else {
        this.busy = false;
      }
    }
  }
}

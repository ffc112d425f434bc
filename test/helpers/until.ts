/**
 * Polls `read` until it returns a value (not undefined), for end-to-end tests that wait on something
 * another process does (an SDK's timer, a browser's request). Fails after timeoutMs with what it
 * waited for, so a hung test says why.
 */
export async function until<T>(read: () => T | undefined, timeoutMs = 8000, what = 'the condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

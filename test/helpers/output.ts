/**
 * What a piece of work printed: metric lines go to stdout and error lines to stderr
 * (lambdas/logging/log.ts), so both are read, and still written through. One line per entry.
 */
import { vi } from 'vitest';

export async function linesPrintedBy(work: () => Promise<unknown>): Promise<string[]> {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    return vi.spyOn(stream, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
      chunks.push(String(chunk));
      return write(chunk, ...rest);
    });
  });
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return chunks.flatMap((c) => c.split('\n'));
}

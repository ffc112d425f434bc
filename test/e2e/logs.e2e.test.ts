/** Logs carry counts and identifiers Tally generated, never values clients sent. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
let key: string;
const lines: string[] = [];
const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
const previousLevel = process.env.TALLY_LOG_LEVEL;

beforeAll(async () => {
  process.env.TALLY_LOG_LEVEL = 'debug';
  for (const stream of ['stdout', 'stderr'] as const) {
    process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = String(chunk);
      if (text.startsWith('{')) lines.push(text);
      return (writes[stream] as (...a: unknown[]) => boolean).call(process[stream], text.startsWith('{') ? '' : chunk, ...rest);
    }) as typeof process.stdout.write;
  }
  stack = await startTestStack();
  const project = await stack.createProject('logs');
  key = await stack.createKey(project);
});
afterAll(async () => {
  process.stdout.write = writes.stdout;
  process.stderr.write = writes.stderr;
  process.env.TALLY_LOG_LEVEL = previousLevel;
  await stack.stop();
});

const EMAIL = 'alice.secret@example.com';

describe('log lines', () => {
  it('a batch whose properties hold an e-mail address never puts it in a log line', async () => {
    const events = [
      { name: '$experiment_exposure', user_id: EMAIL, properties: { $experiment_name: EMAIL, $variant: EMAIL } },
      { name: 'page', user_id: 'u1', properties: { [`$experiment_${EMAIL}`]: 'a', email: EMAIL } },
      { name: '$identify', user_id: 'u1', properties: { $anonymous_id: EMAIL, email: EMAIL, name: EMAIL } },
    ];
    expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
    expect((await stack.post('/api/events', key, { events: [{ name: EMAIL, user_id: 5 }] })).status).toBe(400);
    const assign = await fetch(`${stack.url}/v1/experiments?user_id=${encodeURIComponent(EMAIL)}&anonymous_id=${encodeURIComponent(EMAIL + 'x')}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(assign.status).toBe(200);

    // The capture works: the unknown-experiment warning and the access lines were logged.
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'events name unknown experiments');
    // One name, referenced twice (as the exposure's $experiment_name and as a super property): counted once.
    expect(warning).toMatchObject({ level: 'warn', unknown_experiments: 1 });
    expect(lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(line).not.toContain('example.com');
  });
});

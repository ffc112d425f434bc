/**
 * The unit tests' client and clock (kept apart from fake-fetch.ts, which the end-to-end tests also
 * import: the root type check must not reach the SDK's DOM-typed sources through it).
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { TallyClient } from '../src/client';
import type { TallyOptions } from '../src/types';
import { BASE, fakeLogger } from './fake-fetch';

/** A client against BASE with a recording logger; the interval timer never fires unless a test sets it. */
export function testClient(options: Partial<TallyOptions> = {}) {
  const logger = fakeLogger();
  const c = new TallyClient({ apiKey: 'tk_test', baseURL: BASE, flushIntervalMs: 1e9, logger, ...options });
  return { c, logger };
}

/** Fake timers and a fixed clock for every test of the file; globals and mocks restored after each. */
export function useFakeClock(): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(new Date('2026-03-01T12:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}

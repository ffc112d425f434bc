/** npm start's terminal lines (lambdas/local/terminal-log.ts): short, route names instead of paths, the reminder every screenful. */
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../lambdas/logging/log';
import { REMINDER_EVERY, terminalLine, terminalLogWriter } from '../../lambdas/local/terminal-log';

const at = '2026-04-01T12:04:05.678Z';
const record = (msg: string, fields: Record<string, unknown> = {}, level: LogRecord['level'] = 'info'): LogRecord => ({ level, time: at, msg, fields });

describe('terminal lines', () => {
  it('a request is its time, method, route as declared, status and duration', () => {
    expect(terminalLine(record('request', { route: 'admin-users-get', status: 404, request_id: 'r1', duration_ms: 3 }))).toBe(
      '12:04:05 GET /admin/v1/projects/{project_id}/users/{id} 404 3 ms',
    );
    expect(terminalLine(record('request', { method: 'GET', status: 404, duration_ms: 0 }))).toBe('12:04:05 GET (no route) 404 0 ms');
  });

  it('a batch gives its event count and project; a refused key says why; never a client value', () => {
    const line = terminalLine(record('request', { route: 'ingest-v1', status: 204, duration_ms: 12, project_id: 'p-1', events: 1200, request_id: 'r1' }));
    expect(line).toBe('12:04:05 POST /v1/events 204 12 ms · 1,200 events · project p-1');
    expect(terminalLine(record('request', { route: 'ingest-api', status: 200, duration_ms: 2, project_id: 'p-1', events: 1 }))).toBe(
      '12:04:05 POST /api/events 200 2 ms · 1 event · project p-1',
    );
    // Events of suppressed IDs (a deletion with suppress): a count, never the IDs.
    expect(terminalLine(record('request', { route: 'ingest-v1', status: 204, duration_ms: 3, project_id: 'p-1', events: 4, suppressed: 3 }))).toBe(
      '12:04:05 POST /v1/events 204 3 ms · 4 events · 3 dropped (suppressed IDs) · project p-1',
    );
    expect(terminalLine(record('request', { route: 'ingest-v1', method: 'POST', status: 403, duration_ms: 1, refused: 'origin not allowed' }))).toBe(
      '12:04:05 POST /v1/events 403 1 ms · key refused: origin not allowed',
    );
  });

  it('leaves out the results job when no results changed, and its per-experiment details', () => {
    expect(terminalLine(record('results job finished', { computed: 0, changed: 0, skipped: 3, failed: 0, deferred: 0 }))).toBeNull();
    // Recomputed every minute with nothing new: silent.
    expect(terminalLine(record('results job finished', { computed: 2, changed: 0, skipped: 1, failed: 0, deferred: 0 }))).toBeNull();
    expect(terminalLine(record('results counted incrementally', { experiment_id: 'e1', committed: true }))).toBeNull();
    expect(terminalLine(record('results job finished', { computed: 2, changed: 1, skipped: 1, failed: 0, deferred: 0 }))).toBe(
      '12:04:05 results job: results changed for 1 experiment, 0 failed, 0 left for the next run',
    );
    expect(terminalLine(record('results job finished', { computed: 2, changed: 0, skipped: 1, failed: 1, deferred: 0 }))).toBe(
      '12:04:05 results job: results changed for 0 experiments, 1 failed, 0 left for the next run',
    );
  });

  it('other records keep their level (above info) and fields', () => {
    expect(terminalLine(record('identity resolution failed', { transient: true, error_message: 'socket hang up' }, 'error'))).toBe(
      '12:04:05 ERROR identity resolution failed (transient=true error_message="socket hang up")',
    );
  });

  it('repeats the reminder after every screenful of lines, never before the first', () => {
    const lines: string[] = [];
    const write = terminalLogWriter({ reminder: () => 'REMINDER', write: (line) => lines.push(line) });
    for (let i = 0; i < REMINDER_EVERY * 2 + 1; i++) write(record('request', { route: 'admin-projects-list', status: 200, duration_ms: 1 }));
    expect(lines.filter((l) => l === 'REMINDER')).toHaveLength(2);
    expect(lines[0]).not.toBe('REMINDER');
    expect(lines[REMINDER_EVERY]).toBe('REMINDER');
  });
});

/**
 * A person's export through the local server (docs/api.md "Exports", docs/privacy.md "Access
 * requests"): the downloaded NDJSON file holds every event of every ID linked to the one asked for,
 * each once, their identity links, profile and assignments, and nothing of another person; the link
 * is signed and short-lived; a later deletion of the person removes the file.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWatchedByAlarm } from '../helpers/emf';
import { linesPrintedBy } from '../helpers/output';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

let now = Date.parse('2026-04-15T09:30:00Z');
let stack: TestStack;
let project: string;
let key: string;
let experimentId: string;

const ANN = ['ann', 'ann-laptop', 'ann-phone'];

const send = async (events: unknown[]) => {
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
};

type Line = Record<string, any> & { type: string };
async function download(url: string): Promise<{ status: number; lines: Line[]; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  return {
    status: res.status,
    text,
    lines:
      res.status === 200
        ? text
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Line)
        : [],
  };
}

async function exportOf(userId: string) {
  const asked = await stack.admin('POST', `/admin/v1/projects/${project}/exports`, { user_id: userId });
  expect(asked.status, JSON.stringify(asked.body)).toBe(202);
  return asked.body.export as { id: string; state: string };
}

beforeAll(async () => {
  stack = await startTestStack({ clock: () => now });
  project = await stack.createProject('export');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  const created = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, { name: 'Checkout', goal_event: 'purchase' });
  experimentId = created.body.id;
  expect((await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${experimentId}/start`)).status).toBe(200);
  // Ann: a phone, then her account (linked by $identify, with a profile), then a laptop.
  await send([
    { name: 'view', event_id: 'ann-1', user_id: 'ann-phone', timestamp: '2026-04-09T10:00:00Z' },
    { name: '$identify', user_id: 'ann', timestamp: '2026-04-09T10:01:00Z', properties: { $anonymous_id: 'ann-phone', email: 'ann@example.com', name: 'Ann' } },
    { name: 'view', event_id: 'bob-1', user_id: 'bob', timestamp: '2026-04-10T11:00:00Z' },
  ]);
  // That hour is compacted into the curated partitions; what follows stays in the landing tail.
  await stack.compaction.runNow(Date.parse('2026-04-15T11:00:00Z'));
  now = Date.parse('2026-04-15T11:30:00Z');
  const twice = { name: 'purchase', event_id: 'ann-twice', user_id: 'ann', timestamp: '2026-04-12T09:00:00Z', properties: { total: 12 } };
  await send([twice]);
  await send([
    twice,
    { name: 'view', event_id: 'ann-3', user_id: 'ann-laptop', timestamp: '2026-04-12T10:00:00Z' },
    { name: '$identify', user_id: 'ann', timestamp: '2026-04-12T10:01:00Z', properties: { $anonymous_id: 'ann-laptop' } },
    { name: 'view', event_id: 'bob-2', user_id: 'bob', timestamp: '2026-04-13T11:00:00Z' },
  ]);
  // Ann (and Bob) are assigned a variant of the running experiment.
  for (const id of ['ann', 'bob']) {
    const res = await fetch(`${stack.url}/v1/experiments?user_id=${id}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await stack?.stop();
});

describe("exporting a person's data", () => {
  let annExport: { id: string };
  let annUrl: string;

  it('writes every event of every linked ID once, the links, the profile and the assignment, and nothing of another person', async () => {
    now = Date.parse('2026-04-15T11:40:00Z');
    const asked = await exportOf('ann-laptop');
    expect(asked).toMatchObject({
      project_id: project,
      user_id: 'ann-laptop',
      state: 'pending',
      requested_at: '2026-04-15T11:40:00.000Z',
      requested_by: 'admin token',
    });
    expect(asked).not.toHaveProperty('download_url');
    annExport = asked;

    await stack.compaction.runNow();
    const done = await stack.admin('GET', `/admin/v1/projects/${project}/exports/${asked.id}`);
    expect(done.status).toBe(200);
    expect(done.body.export).toMatchObject({
      state: 'done',
      ids: ANN,
      finished_at: '2026-04-15T11:40:00.000Z',
      counts: { events: 5, identity_links: expect.any(Number), profiles: 1, assignments: 1 },
      download_expires_at: '2026-04-15T11:55:00.000Z',
    });
    annUrl = done.body.export.download_url;
    expect(annUrl).toMatch(new RegExp(`^${stack.url}/local/exports/`));

    const file = await download(annUrl);
    expect(file.status).toBe(200);
    const events = file.lines.filter((l) => l.type === 'event');
    expect(events.map((e) => e.event_id ?? e.name).sort()).toEqual(['$identify', '$identify', 'ann-1', 'ann-3', 'ann-twice']);
    expect(events.find((e) => e.event_id === 'ann-twice')).toMatchObject({
      name: 'purchase',
      sent_user_id: 'ann',
      timestamp: '2026-04-12T09:00:00.000Z',
      properties: { total: 12 },
    });
    const links = file.lines.filter((l) => l.type === 'identity_link');
    expect(links.length).toBe(done.body.export.counts.identity_links);
    expect(new Set(links.flatMap((l) => [l.id, l.canonical_id]))).toEqual(new Set(ANN));
    expect(file.lines.filter((l) => l.type === 'profile')).toEqual([{ type: 'profile', id: 'ann', email: 'ann@example.com', name: 'Ann' }]);
    // Stored under the ID the assignment resolved to (her first ID, canonical since her first $identify).
    expect(file.lines.filter((l) => l.type === 'assignment')).toEqual([
      { type: 'assignment', user_id: 'ann-phone', experiment_id: experimentId, variant: expect.any(String) },
    ]);
    expect(new Set(file.lines.map((l) => l.type))).toEqual(new Set(['event', 'identity_link', 'profile', 'assignment']));
    // Nothing of Bob's anywhere in it.
    expect(file.text).not.toMatch(/bob/);
  });

  it('gives an ID with no data an empty file and zero counts', async () => {
    now = Date.parse('2026-04-15T11:45:00Z');
    const asked = await exportOf('nobody');
    await stack.compaction.runNow();
    const done = await stack.admin('GET', `/admin/v1/projects/${project}/exports/${asked.id}`);
    expect(done.body.export).toMatchObject({ state: 'done', ids: ['nobody'], counts: { events: 0, identity_links: 0, profiles: 0, assignments: 0 } });
    const file = await download(done.body.export.download_url);
    expect(file).toMatchObject({ status: 200, text: '' });
  });

  it('lists exports newest first, paginated, each done one with a fresh link', async () => {
    const first = await stack.admin('GET', `/admin/v1/projects/${project}/exports?limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.exports.map((e: { user_id: string }) => e.user_id)).toEqual(['nobody']);
    const second = await stack.admin('GET', `/admin/v1/projects/${project}/exports?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.exports.map((e: { user_id: string }) => e.user_id)).toEqual(['ann-laptop']);
    expect(second.body.exports[0].download_url).toMatch(/signature=/);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/exports?cursor=bogus`)).status).toBe(400);
  });

  it('refuses a forged, unsigned or expired link with 403', async () => {
    const forged = new URL(annUrl);
    forged.searchParams.set('expires', String(Number(forged.searchParams.get('expires')) + 3_600_000));
    expect(await download(forged.toString())).toMatchObject({ status: 403, text: expect.stringMatching(/not valid/) });
    const unsigned = new URL(annUrl);
    unsigned.search = '';
    expect((await download(unsigned.toString())).status).toBe(403);
    now = Date.parse('2026-04-15T11:56:00Z');
    expect(await download(annUrl)).toMatchObject({ status: 403, text: expect.stringMatching(/expired/) });
    // Read again, the export has a new link that works.
    const again = await stack.admin('GET', `/admin/v1/projects/${project}/exports/${annExport.id}`);
    expect(again.body.export.download_expires_at).toBe('2026-04-15T12:11:00.000Z');
    expect((await download(again.body.export.download_url)).status).toBe(200);
    annUrl = again.body.export.download_url;
  });

  it.each([
    [{}, /user_id/],
    [{ user_id: '' }, /user_id must not be empty: give the ID of the person to export/],
    [{ user_id: 'x'.repeat(1025) }, /user_id must be at most 1024/],
    [{ user_id: 'a', reason: 'x' }, /reason/],
  ])('refuses an invalid request with a 400 that says what to fix (%#)', async (body, message) => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/exports`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('answers 404 for an unknown project or export', async () => {
    expect((await stack.admin('POST', '/admin/v1/projects/no-such-project/exports', { user_id: 'a' })).status).toBe(404);
    expect((await stack.admin('GET', '/admin/v1/projects/no-such-project/exports')).status).toBe(404);
    const missing = await stack.admin('GET', `/admin/v1/projects/${project}/exports/abc-00000000-0000-0000-0000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/Export .* not found/);
  });

  it('a later deletion of the person removes their export: its file and its request', async () => {
    expect((await download(annUrl)).status).toBe(200);
    const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: 'ann-phone' });
    expect(asked.status).toBe(202);
    await stack.compaction.runNow();
    const deletion = await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${asked.body.deletion.id}`);
    expect(deletion.body.deletion.state).toBe('done');
    expect(deletion.body.deletion.receipt).toContainEqual({ store: 'exports', removed: 1, at: expect.any(String) });
    expect(await download(annUrl)).toMatchObject({ status: 404, text: expect.stringMatching(/gone/) });
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/exports/${annExport.id}`)).status).toBe(404);
    // Another person's export stays.
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/exports`);
    expect(listed.body.exports.map((e: { user_id: string }) => e.user_id)).toEqual(['nobody']);
  });
  it('an export that cannot be written emits the alarmed ExportFailed metric, stays unfinished, and the next run finishes it', async () => {
    const other = await stack.createProject('export-fails');
    const otherKey = await stack.createKey(other, UNTHROTTLED_KEY);
    const res = await stack.post('/v1/events', otherKey, { events: [{ name: 'view', event_id: 'zed-1', user_id: 'zed', timestamp: '2026-04-14T10:00:00Z' }] });
    expect(res.status).toBe(204);
    const asked = await stack.admin('POST', `/admin/v1/projects/${other}/exports`, { user_id: 'zed' });
    expect(asked.status).toBe(202);
    // A file where the project's export folder goes: the export's write fails.
    const blocker = join(stack.dataDir, 'exports', `project_id=${other}`);
    writeFileSync(blocker, '');
    const all = await linesPrintedBy(() => stack.compaction.runNow());
    const emf = all.filter((l) => l.includes('"ExportFailed"') && l.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    for (const line of emf) expectWatchedByAlarm(line);
    expect(all.filter((l) => l.includes('zed'))).toEqual([]);
    const pending = await stack.admin('GET', `/admin/v1/projects/${other}/exports/${asked.body.export.id}`);
    expect(pending.body.export.state).not.toBe('done');
    rmSync(blocker);
    await stack.compaction.runNow();
    const done = await stack.admin('GET', `/admin/v1/projects/${other}/exports/${asked.body.export.id}`);
    expect(done.body.export).toMatchObject({ state: 'done', counts: { events: 1 } });
  });

  it("keeps an export file 7 days, as the raw bucket's lifecycle rule does, then the next run deletes it", async () => {
    const asked = await exportOf('bob');
    await stack.compaction.runNow();
    const read = async () => (await stack.admin('GET', `/admin/v1/projects/${project}/exports/${asked.id}`)).body.export;
    expect((await read()).state).toBe('done');
    const written = now;
    now = written + 7 * 86_400_000 - 60_000;
    await stack.compaction.runNow();
    expect((await download((await read()).download_url)).status).toBe(200);
    now = written + 7 * 86_400_000;
    await stack.compaction.runNow();
    expect(await download((await read()).download_url)).toMatchObject({ status: 404, text: expect.stringMatching(/older than its retention/) });
  });
});

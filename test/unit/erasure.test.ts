/**
 * The person rule (domain/person-ids.ts), the deletion's steps (domain/deletion.ts), the landing-row
 * rule (domain/person-rows.ts) and the curated-partition texts (adapters/sql/erasure.ts), which Athena
 * would run: they parse with Trino's grammar.
 */
import { describe, expect, it } from 'vitest';
import { afterStep, afterSweep, beginStep, DELETION_STEPS, deletionView, newDeletion, sweeps } from '../../lambdas/domain/deletion';
import { personIds } from '../../lambdas/domain/person-ids';
import { isPersonRow } from '../../lambdas/domain/person-rows';
import { renderPersonLinks, renderPersonPartitions, renderWithoutPerson } from '../../lambdas/adapters/sql/erasure';
import { trinoSyntaxErrors } from '../helpers/trino-grammar';
import { DeletionStepFailed } from '../../lambdas/services/erase-people';

describe('the person of an ID', () => {
  it('is every ID linked to it, directly or through others, now or as it was', () => {
    const links = [
      { id: 'phone', canonical_id: 'phone' },
      { id: 'ann', canonical_id: 'phone' },
      // laptop once pointed at ann's old root, later re-linked elsewhere: still hers.
      { id: 'laptop', canonical_id: 'ann' },
      { id: 'laptop', canonical_id: 'work' },
      { id: 'bob', canonical_id: 'bob' },
      { id: 'bob-anon', canonical_id: 'bob' },
    ];
    expect(personIds('phone', links)).toEqual(['ann', 'laptop', 'phone', 'work']);
    expect(personIds('work', links)).toEqual(['ann', 'laptop', 'phone', 'work']);
    expect(personIds('bob-anon', links)).toEqual(['bob', 'bob-anon']);
    expect(personIds('nobody', links)).toEqual(['nobody']);
  });
});

describe('a deletion', () => {
  const asked = newDeletion({ id: 'd1', project_id: 'p', user_id: 'ann', requested_by: 'admin token', nowMs: Date.parse('2026-04-15T11:40:00Z') });

  it('is due 24 hours after its request and goes through every step in order, then is done', () => {
    expect(asked).toMatchObject({ state: 'pending', step: 'ids', due_by: '2026-04-16T11:40:00.000Z', reason: null, suppress: false });
    let d = asked;
    const at = Date.parse('2026-04-15T12:00:00Z');
    for (const step of DELETION_STEPS) {
      expect(d.step).toBe(step);
      d = afterStep(beginStep(d, step), step, 1, at, step === 'ids' ? ['ann', 'ann-phone'] : undefined);
    }
    expect(d).toMatchObject({ state: 'done', finished_at: '2026-04-15T12:00:00.000Z', ids: ['ann', 'ann-phone'] });
    expect(d.receipt!.map((l) => l.store)).toEqual(DELETION_STEPS.slice(1));
    expect(deletionView(d)).not.toHaveProperty('step');
    expect(deletionView(d)).not.toHaveProperty('began');
  });

  it('sweeps late landing objects until 24 h 15 min after the request, adding what it finds to the landing lines', () => {
    expect(asked.sweep_until).toBe('2026-04-16T11:55:00.000Z');
    let d = asked;
    for (const step of DELETION_STEPS) d = afterStep(beginStep(d, step), step, 1, Date.parse('2026-04-15T12:00:00Z'), step === 'ids' ? ['ann'] : undefined);
    expect(sweeps(asked, Date.parse('2026-04-15T12:00:00Z'))).toBe(false); // not done yet: its steps come first
    expect(sweeps(d, Date.parse('2026-04-16T11:54:59Z'))).toBe(true);
    expect(sweeps(d, Date.parse('2026-04-16T11:55:00Z'))).toBe(false);
    const swept = afterSweep(d, { landing_events: 2, landing_identities: 0 }, Date.parse('2026-04-16T03:00:00Z'));
    expect(swept.swept_at).toBe('2026-04-16T03:00:00.000Z');
    expect(swept.receipt!.find((l) => l.store === 'landing_events')).toEqual({ store: 'landing_events', removed: 3, at: '2026-04-16T03:00:00.000Z' });
    expect(swept.receipt!.find((l) => l.store === 'landing_identities')).toEqual(d.receipt!.find((l) => l.store === 'landing_identities'));
    expect(deletionView(swept)).not.toHaveProperty('swept_at');
  });

  it('drops derived data only when something of the person may have been removed: counted, or a step interrupted', () => {
    const none = afterStep(beginStep(asked, 'ids'), 'ids', 0, 0, ['ann']);
    expect(afterStep(beginStep(none, 'identities'), 'identities', 0, 0).removed_any).toBe(false);
    expect(afterStep(beginStep(none, 'identities'), 'identities', 2, 0).removed_any).toBe(true);
    // Begun, never recorded done, begun again: the first run may have removed what the second cannot count.
    expect(beginStep(beginStep(none, 'identities'), 'identities').removed_any).toBe(true);
  });
});

describe('a landing row of the person', () => {
  const rule = { projectId: 'p', ids: new Set(['ann', 'phone']), through: '2026-04-15T11:40:00.000Z' };
  it('names one of the IDs (resolved or as sent) in the project, received through the request', () => {
    const event = { project_id: 'p', user_id: 'x', sent_user_id: 'phone', received_at: '2026-04-15T11:00:00.000Z' };
    expect(isPersonRow('events', event, rule)).toBe(true);
    expect(isPersonRow('events', { ...event, sent_user_id: 'x', user_id: 'ann' }, rule)).toBe(true);
    expect(isPersonRow('events', { ...event, project_id: 'q' }, rule)).toBe(false);
    expect(isPersonRow('events', { ...event, received_at: '2026-04-15T11:40:00.001Z' }, rule)).toBe(false);
    expect(isPersonRow('events', { ...event, sent_user_id: null }, rule)).toBe(false);
    const link = { project_id: 'p', id: 'laptop', canonical_id: 'ann', timestamp: '2026-04-15T11:00:00.000Z' };
    expect(isPersonRow('identities', link, rule)).toBe(true);
    expect(isPersonRow('identities', { ...link, canonical_id: 'laptop' }, rule)).toBe(false);
  });
});

describe("the curated partitions' texts", () => {
  const person = { ids: ['ann', "o'neil"], through: '2026-04-15T11:40:00.000Z' };
  const batch = [
    { projectId: 'p', dt: '2026-04-09' },
    { projectId: 'p', dt: '2026-04-10' },
  ];
  it('parse with Trino grammar (Athena engine 3) for both streams', () => {
    for (const stream of ['events', 'identities'] as const) {
      for (const sql of [
        renderPersonPartitions(stream, 'p', person, `tally.curated_${stream}`),
        renderWithoutPerson(stream, batch, person, `tally.curated_${stream}`),
      ]) {
        expect(trinoSyntaxErrors(sql), sql).toEqual([]);
        expect(sql).toContain("'o''neil'");
      }
    }
    expect(trinoSyntaxErrors(renderPersonLinks('p', person.ids, { curated: 'tally.curated_identities', landing: 'tally.landing_identities' }))).toEqual([]);
  });

  it('refuse a person without IDs or a batch without partitions', () => {
    expect(() => renderPersonPartitions('events', 'p', { ids: [], through: person.through }, 'c')).toThrow(/at least one ID/);
    expect(() => renderWithoutPerson('events', [], person, 'c')).toThrow(/at least one partition/);
  });
});

describe('a failed step', () => {
  it('names the deletion and the step, never the cause message (an engine may quote the SQL holding the IDs)', () => {
    const err = new DeletionStepFailed('d1', 'curated_events', new Error("SELECT ... WHERE user_id IN ('ann')"));
    expect(err.message).toBe('deletion d1 failed at step curated_events (Error)');
    expect(err.message).not.toContain('ann');
  });
});

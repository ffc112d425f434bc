/** When the results job rolls up its base and which generations it may delete (lambdas/domain/results-base.ts). */
import { describe, expect, it } from 'vitest';
import { baseDue, baseFor, newGeneration, parseBaseCommit, startWatermark, supersededGenerations } from '../../lambdas/domain/results-base';

describe('baseDue', () => {
  it('rolls up the days from the previous boundary to the day before the watermark, once a day has closed', () => {
    expect(baseDue({ boundaryDt: '2026-03-18' }, '2026-03-20T00:10:00.000Z', '2026-02-28')).toEqual({
      closedFromDt: '2026-03-18',
      closedToDt: '2026-03-19',
      boundaryDt: '2026-03-20',
    });
    expect(baseDue({ boundaryDt: '2026-03-20' }, '2026-03-20T23:59:00.000Z', '2026-02-28')).toBeUndefined();
  });
  it("starts the first base from the empty state's first day", () => {
    expect(baseDue(undefined, '2026-03-01T06:00:00.000Z', '2026-02-28')).toEqual({
      closedFromDt: '2026-02-28',
      closedToDt: '2026-02-28',
      boundaryDt: '2026-03-01',
    });
    expect(baseDue(undefined, '2026-02-28T06:00:00.000Z', '2026-02-28')).toBeUndefined();
  });
});

describe('supersededGenerations', () => {
  const commit = {
    generation: newGeneration('2026-03-20T02:00:00.000Z', 'cur'),
    boundaryDt: '2026-03-20',
    watermark: '2026-03-20T01:35:00.000Z',
    committedAt: '2026-03-20T02:00:30.000Z',
    metricSources: '[]',
  };
  const older = newGeneration('2026-03-19T02:00:00.000Z', 'old');
  const writing = newGeneration('2026-03-20T02:10:00.000Z', 'new');
  it('keeps everything while a run may still read the generation the commit replaced (900 s, the Lambda maximum)', () => {
    expect(supersededGenerations([older, commit.generation], commit, '2026-03-20T02:15:29.999Z')).toEqual([]);
  });
  it('then deletes every generation but the committed, except one created within the last 900 s (a run may be writing it)', () => {
    expect(supersededGenerations([older, commit.generation, writing, 'not-ours'], commit, '2026-03-20T02:20:00.000Z')).toEqual([older]);
    expect(supersededGenerations([older, commit.generation, writing], commit, '2026-03-20T02:25:00.000Z')).toEqual([older, writing]);
  });
});

describe('parseBaseCommit', () => {
  it('reads a commit back and names what is wrong with another object', () => {
    const commit = {
      generation: '20260320T020000000Z-abc',
      boundaryDt: '2026-03-20',
      watermark: '2026-03-20T01:35:00.000Z',
      committedAt: '2026-03-20T02:00:30.000Z',
      metricSources: '["[\\"purchase\\",null]"]',
    };
    expect(parseBaseCommit(JSON.stringify(commit), 'x')).toEqual(commit);
    expect(() => parseBaseCommit(JSON.stringify({ ...commit, generation: '../events' }), 's3://b/k')).toThrow('s3://b/k is not a base commit');
    expect(() => parseBaseCommit(JSON.stringify({ ...commit, metricSources: ['purchase'] }), 's3://b/k')).toThrow('s3://b/k is not a base commit');
  });
  it('reads a commit written before metrics existed as a base of no metric sources', () => {
    const { metricSources: _, ...old } = parseBaseCommit(
      JSON.stringify({ generation: 'g-1', boundaryDt: '2026-03-20', watermark: '2026-03-20T01:35:00.000Z', committedAt: '2026-03-20T02:00:30.000Z' }),
      'x',
    );
    expect(parseBaseCommit(JSON.stringify(old), 'x').metricSources).toBe('[]');
  });
});

describe('baseFor', () => {
  const commit = {
    generation: 'g-1',
    boundaryDt: '2026-03-20',
    watermark: '2026-03-20T01:35:00.000Z',
    committedAt: '2026-03-20T02:00:30.000Z',
    metricSources: '["[\\"purchase\\",null]"]',
  };
  it('reads the base only for the set of metric sources it summarises (another set rebuilds the state)', () => {
    expect(baseFor(commit, commit.metricSources)).toBe(commit);
    expect(baseFor(commit, '[]')).toBeUndefined();
    expect(baseFor(commit, '["[\\"page_view\\",null]","[\\"purchase\\",null]"]')).toBeUndefined();
    expect(baseFor(undefined, '[]')).toBeUndefined();
  });
});

describe('startWatermark', () => {
  const empty = '2026-03-13T08:00:00.000Z';
  it("resumes from the state's commit, never before the base's (a lost state commit resumes after the base, whose days are no longer read as state)", () => {
    expect(startWatermark('2026-03-15T20:35:00.000Z', { watermark: '2026-03-15T12:35:00.000Z' }, empty)).toBe('2026-03-15T20:35:00.000Z');
    expect(startWatermark(undefined, { watermark: '2026-03-15T12:35:00.000Z' }, empty)).toBe('2026-03-15T12:35:00.000Z');
    expect(startWatermark(undefined, undefined, empty)).toBe(empty);
  });
});

/**
 * The planning baseline's query on both engines: the text Athena is sent (the look-back's partitions
 * of the project, the identities from the day before the project's creation, Athena's text rows
 * mapped back to numbers) is the text DuckDB runs on the local files.
 */
import { describe, expect, it } from 'vitest';
import { AthenaPlanningBaselines } from '../../lambdas/adapters/athena-planning-baseline';
import { renderPlanningBaseline } from '../../lambdas/adapters/sql/planning-baseline';
import type { BaselineRequest } from '../../lambdas/ports';

const request: BaselineRequest = {
  projectId: 'p',
  projectCreatedAt: '2026-03-10T08:00:00.000Z',
  event: "it's",
  property: 'amount',
  from: '2026-06-16T12:00:00.000Z',
  to: '2026-06-30T12:00:00.000Z',
};

describe('AthenaPlanningBaselines', () => {
  it("sends the one query text with the Glue tables, reading only the look-back's days of the project, and maps text rows", async () => {
    const sent: string[] = [];
    const athena = {
      eventsTable: 'tally.events',
      identitiesTable: 'tally.identities',
      run: async (sql: string) => {
        sent.push(sql);
        return {
          rows: [
            {
              users: '4',
              converted: '2',
              value_sum: '42.5',
              value_sum_squares: '1806.25',
              first_seen: '2026-06-20T10:00:00.000Z',
              covariate_converted: '1',
              covariate_converted_products: '1',
              covariate_value_sum: '10.5',
              covariate_value_sum_squares: '110.25',
              covariate_value_sum_products: '420.0',
            },
          ],
          execution: {},
        };
      },
    };
    const baselines = new AthenaPlanningBaselines(athena, { maxWaitMs: 25_000 });
    expect(await baselines.measure(request)).toEqual({
      users: 4,
      converted: 2,
      value_sum: 42.5,
      value_sum_squares: 1806.25,
      first_seen: '2026-06-20T10:00:00.000Z',
      covariate_converted: 1,
      covariate_converted_products: 1,
      covariate_value_sum: 10.5,
      covariate_value_sum_squares: 110.25,
      covariate_value_sum_products: 420,
    });
    expect(sent[0]).toBe(renderPlanningBaseline(request, { events: 'tally.events', identities: 'tally.identities' }));
    expect(sent[0]).toContain("dt BETWEEN '2026-06-16' AND '2026-06-30'");
    expect(sent[0]).toContain("dt >= '2026-03-09'");
    expect(sent[0]).toContain("project_id = 'p'");
    expect(sent[0]).toContain("w.name = 'it''s'");
    expect(sent[0]).toContain(`'$["amount"]'`);
    // Each event once: read from the events view, which holds each event once (no ranking of copies here).
    expect(sent[0]).toMatch(/FROM tally\.events\s+WHERE/);
    expect(sent[0]).not.toContain('copy_rank');
  });

  it('names a property with JSON-path syntax in a quoted path, refuses one no path reads alike, and a project without events maps to no first event', async () => {
    expect(renderPlanningBaseline({ ...request, property: '[*]' }, { events: 'e', identities: 'i' })).toContain(`'$["[*]"]'`);
    expect(() => renderPlanningBaseline({ ...request, property: 'a"b' }, { events: 'e', identities: 'i' })).toThrow(/double quote/);
    expect(() => renderPlanningBaseline({ ...request, property: 'a\u0000b' }, { events: 'e', identities: 'i' })).toThrow(/contains U\+0000/);
    const athena = {
      eventsTable: 'tally.events',
      identitiesTable: 'tally.identities',
      run: async () => ({
        rows: [
          {
            users: '0',
            converted: '0',
            value_sum: '0.0',
            value_sum_squares: '0.0',
            first_seen: undefined,
            covariate_converted: '0',
            covariate_converted_products: '0',
            covariate_value_sum: '0.0',
            covariate_value_sum_squares: '0.0',
            covariate_value_sum_products: '0.0',
          },
        ],
        execution: {},
      }),
    };
    expect(await new AthenaPlanningBaselines(athena, { maxWaitMs: 1 }).measure(request)).toMatchObject({ users: 0, first_seen: null });
  });
});

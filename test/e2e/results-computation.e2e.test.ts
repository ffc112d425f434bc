/**
 * The results response's `computation`: the engine and the exact counting query, so an analyst can
 * reproduce the numbers. Running the reported text (over the same files, as the DuckDB adapter sets
 * them up) gives the reported counts; the text is what the adapter runs for that window.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckDbResultsQuery } from '../../lambdas/adapters/duckdb-results-query';
import { countRequestFor } from '../../lambdas/services/count-request';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;
let engine: DuckDbResultsQuery;
/** While set, any use of the server's results query throws, as on AWS, where reading results has none wired. */
let queryUnavailable = false;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('results-computation', {
    overrides: (deps) => ({
      ...deps,
      resultsQuery: new Proxy(deps.resultsQuery, {
        get(target, property, receiver) {
          if (queryUnavailable) throw new Error('no results query in this function');
          return Reflect.get(target, property, receiver);
        },
      }),
    }),
  }));
  engine = new DuckDbResultsQuery(stack.dataDir);
});
afterAll(async () => {
  await engine?.close();
  await stack?.stop();
});

it('reports the query it ran, and running that text reproduces the reported counts', async () => {
  const base = `/admin/v1/projects/${project}/experiments`;
  const created = await stack.admin('POST', base, { name: "Checkout 'Express'", goal_event: 'purchase', variants: ['control', 'fast'] });
  const id = created.body.id as string;
  const started = await stack.admin('POST', `${base}/${id}/start`);
  const t0 = Date.parse(started.body.started_at);
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const events: unknown[] = [];
  for (let i = 0; i < 12; i++) {
    const variant = i % 3 === 0 ? 'control' : 'fast';
    events.push({
      name: '$experiment_exposure',
      user_id: `u${i}`,
      timestamp: at(1),
      properties: { $experiment_name: "Checkout 'Express'", $variant: variant },
    });
    if (i % 2 === 0) events.push({ name: 'purchase', user_id: `u${i}`, timestamp: at(2) });
  }
  expect((await stack.post('/v1/events', key, { events })).status).toBe(204);

  const refreshed = await stack.admin('POST', `${base}/${id}/results/refresh`);
  expect(refreshed.status).toBe(200);
  const { computation, window, variants } = refreshed.body;
  expect(computation.engine).toBe('duckdb');
  expect(computation.query).toContain("'Checkout ''Express'''"); // the name as a literal, quotes doubled
  expect(variants.map((v: { enrolled: number; converted: number }) => [v.enrolled, v.converted])).toEqual([
    [4, 2],
    [8, 4],
  ]);

  // The GET reports the same text for the stored window, stored with the results: reading them needs
  // no query engine (the AWS function serving GET has none).
  queryUnavailable = true;
  const read = await stack.admin('GET', `${base}/${id}/results`);
  queryUnavailable = false;
  expect(read.status).toBe(200);
  expect(read.body.computation).toEqual(computation);

  // The text is what the adapter runs for this experiment and window, and running it gives the counts.
  const projects = (await stack.admin('GET', '/admin/v1/projects')).body.projects as Array<{ id: string; created_at: string }>;
  const experiment = (await stack.admin('GET', `${base}/${id}`)).body;
  const request = countRequestFor({ name: '', ...projects.find((p) => p.id === project)! }, experiment, window);
  expect(engine.describe(request)).toEqual(computation);
  const rerun = await engine.execute(request, computation.query);
  expect(rerun.variants).toEqual(
    variants.map((v: { variant: string; enrolled: number; converted: number }) => ({ variant: v.variant, enrolled: v.enrolled, converted: v.converted })),
  );
  // A different text gives different counts: the check can fail.
  const otherGoal = await engine.execute(request, computation.query.replace("'purchase'", "'nothing'"));
  expect(otherGoal.variants.map((v) => v.converted)).toEqual([0, 0]);
});

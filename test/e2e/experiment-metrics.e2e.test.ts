/**
 * An experiment's metric settings through the local server (issue 22): `metrics`, `sequential` and
 * `correction` set on create and update, stored, always returned (with their defaults), refused with
 * a 400 naming the rule and how to fix it, and fixed once started like the rest of the experiment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;

beforeAll(async () => {
  ({ stack, project } = await startTestProject('experiment-metrics'));
});
afterAll(() => stack.stop());

const base = () => `/admin/v1/projects/${project}/experiments`;
let counter = 0;
const create = (fields: Record<string, unknown>) => stack.admin('POST', base(), { name: `Metrics ${++counter}`, goal_event: 'purchase', ...fields });

const revenue = { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.99 };
const errors = { name: 'Errors', event: 'error', kind: 'count', role: 'guardrail', direction: 'increase' };
const signup = { name: 'Signed up', event: 'signup', kind: 'conversion', role: 'secondary' };

describe('metric settings in the admin API', () => {
  it('default to no metrics, sequential testing and the Holm correction, and are returned everywhere', async () => {
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ metrics: [], sequential: true, correction: 'holm' });
    expect((await stack.admin('GET', `${base()}/${plain.body.id}`)).body).toMatchObject({ metrics: [], sequential: true, correction: 'holm' });
  });

  it('are stored as sent, in order, and listed', async () => {
    const res = await create({ metrics: [revenue, errors, signup], sequential: false, correction: 'benjamini-hochberg' });
    expect(res.status).toBe(201);
    const want = { metrics: [revenue, errors, signup], sequential: false, correction: 'benjamini-hochberg' };
    expect(res.body).toMatchObject(want);
    expect((await stack.admin('GET', `${base()}/${res.body.id}`)).body).toMatchObject(want);
    const listed = (await stack.admin('GET', base())).body.experiments.find((e: any) => e.id === res.body.id);
    expect(listed).toMatchObject(want);
    const none = await create({ correction: null });
    expect((await stack.admin('GET', `${base()}/${none.body.id}`)).body.correction).toBeNull();
  });

  it.each(
    (
      [
        [{ metrics: [{ ...revenue, property: undefined }] }, 'metrics.0.property: a sum metric needs property'],
        [{ metrics: [{ ...signup, property: 'amount' }] }, 'metrics.0.property: property is only for sum metrics'],
        [{ metrics: [{ ...errors, direction: undefined }] }, 'metrics.0.direction: a guardrail needs direction: "increase" or "decrease"'],
        [{ metrics: [{ ...signup, direction: 'increase' }] }, 'metrics.0.direction: direction is only for guardrails'],
        [{ metrics: [signup, { ...revenue, name: 'Signed up' }] }, 'metrics.1.name: metric names must be unique: "Signed up" is also the name of metrics.0'],
        [{ metrics: [{ ...signup, name: 'purchase' }] }, 'metrics.0.name: "purchase" names the primary metric'],
        [{ metrics: [{ ...revenue, cap: 1 }] }, 'metrics.0.cap: cap must be from 0.5 to 0.9999 (a percentile such as 0.99), or left out for none'],
        [{ metrics: [{ ...revenue, cap: 0 }] }, 'metrics.0.cap: cap must be from 0.5 to 0.9999'],
        // DynamoDB cannot store it (Number underflow): refused before, not a 500.
        [{ metrics: [{ ...revenue, cap: 1e-200 }] }, 'metrics.0.cap: cap must be from 0.5 to 0.9999'],
        [{ metrics: [{ ...revenue, cap: 0.3 }] }, 'metrics.0.cap: cap must be from 0.5 to 0.9999'],
        [{ metrics: [{ ...revenue, cap: 0.99999 }] }, 'metrics.0.cap: cap must be from 0.5 to 0.9999'],
        [{ metrics: [{ ...revenue, cap: '0.99' }] }, 'metrics.0.cap: cap must be a number from 0.5 to 0.9999'],
        [{ metrics: [{ ...signup, kind: 'average' }] }, 'metrics.0.kind: kind must be one of "conversion", "count", "sum"'],
        [{ metrics: [{ ...signup, role: 'primary' }] }, 'metrics.0.role: role must be one of "secondary", "guardrail"'],
        [{ metrics: [{ ...signup, event: '' }] }, 'metrics.0.event: event must not be empty'],
        [{ metrics: [{ ...signup, event: 'e'.repeat(256) }] }, 'metrics.0.event: event is longer than 255 characters'],
        [{ metrics: [{ ...signup, name: 'bad\u0000name' }] }, 'metrics.0.name: name contains U+0000 (NUL)'],
        [{ metrics: [{ ...signup, event: 'broken\ud800' }] }, 'metrics.0.event: event is not well-formed'],
        [{ metrics: [{ ...signup, colour: 'red' }] }, 'metrics.0'],
        [{ metrics: 'revenue' }, 'metrics: metrics must be an array of at most 10 metrics'],
        [{ metrics: Array.from({ length: 11 }, (_, i) => ({ ...signup, name: `m${i}` })) }, 'metrics: metrics may have at most 10 entries'],
        [{ metrics: new Array(50_000).fill(0) }, 'metrics: metrics may have at most 10 entries'],
        [{ sequential: 'yes' }, 'sequential: sequential must be true'],
        [{ correction: 'bonferroni' }, 'correction: correction must be one of "holm", "benjamini-hochberg", or null for none'],
      ] as [Record<string, unknown>, string][]
    ).map(([fields, message]) => [message, fields] as const),
  )('refuses with a 400 saying %s', async (message, fields) => {
    const res = await create(fields);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
    // One message for the rule, not one per entry of a huge array.
    expect(res.body.error.length).toBeLessThan(500);
  });

  it('are edited while created, checked against the goal after the change, and fixed once started (409)', async () => {
    const created = await create({ metrics: [signup] });
    const path = `${base()}/${created.body.id}`;
    const edited = await stack.admin('PATCH', path, { metrics: [revenue, errors], sequential: false, correction: null });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ metrics: [revenue, errors], sequential: false, correction: null });
    expect((await stack.admin('GET', path)).body).toMatchObject({ metrics: [revenue, errors], sequential: false, correction: null });
    // A new goal event may not take a metric's name: the primary metric is named after it.
    const clash = await stack.admin('PATCH', path, { goal_event: 'Revenue' });
    expect(clash.status).toBe(400);
    expect(clash.body.error).toContain('metrics.0.name: "Revenue" names the primary metric');
    // Other fields alone leave the metric settings as they are.
    expect((await stack.admin('PATCH', path, { description: 'more' })).body).toMatchObject({ metrics: [revenue, errors], sequential: false });
    await stack.admin('POST', `${path}/start`);
    for (const change of [{ metrics: [] }, { sequential: true }, { correction: 'holm' }]) {
      const refused = await stack.admin('PATCH', path, change);
      expect(refused.status).toBe(409);
    }
    expect((await stack.admin('GET', path)).body).toMatchObject({ metrics: [revenue, errors], sequential: false, correction: null });
  });
});

describe('GET /openapi.json', () => {
  it('describes the metric settings in requests and in the experiment returned', async () => {
    const doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as any;
    const op = doc.paths['/admin/v1/projects/{project_id}/experiments'].post;
    const body = op.requestBody.content['application/json'].schema.properties;
    expect(body.metrics).toMatchObject({ type: 'array', maxItems: 10, items: { required: ['name', 'event', 'kind', 'role'] } });
    expect(body.metrics.items.properties.cap).toMatchObject({ minimum: 0.5, maximum: 0.9999 });
    expect(body.sequential).toMatchObject({ type: 'boolean' });
    const returned = op.responses['201'].content['application/json'].schema;
    expect(returned.required).toEqual(expect.arrayContaining(['metrics', 'sequential', 'correction']));
    const patch = doc.paths['/admin/v1/projects/{project_id}/experiments/{id}'].patch.requestBody.content['application/json'].schema.properties;
    expect(Object.keys(patch)).toEqual(expect.arrayContaining(['metrics', 'sequential', 'correction']));
  });
});

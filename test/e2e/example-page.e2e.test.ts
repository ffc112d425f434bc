/** The local server's SDK example page (/example/), which loads the script-tag build. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

it('serves the example page and the SDK build it loads', async () => {
  const redirect = await fetch(`${stack.url}/example`, { redirect: 'manual' });
  expect(redirect.status).toBe(308);
  expect(redirect.headers.get('location')).toBe('/example/');

  const page = await fetch(`${stack.url}/example/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  expect(html).toContain('<script src="tally.min.js"></script>');
  expect(html).toContain('Tally.init(');

  const script = await fetch(`${stack.url}/example/tally.min.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await script.text()).toContain('var Tally=');

  expect((await fetch(`${stack.url}/example/nothing.js`)).status).toBe(404);
  // The API is untouched: an unknown path still gets the API's 404 body.
  expect(await (await fetch(`${stack.url}/examples`)).json()).toMatchObject({ error: expect.stringMatching(/No route/) });
});

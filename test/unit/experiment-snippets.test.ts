/**
 * The experiment page's code snippets run as written, whatever the experiment is named: the SDK
 * snippet is executed as JavaScript against a stand-in client, and the HTTP one by bash with curl
 * replaced by a function that prints its arguments.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { restSnippet, sdkSnippet } from '../../dashboard/src/experiment-snippets';

const NAMES = ['Checkout button', `it's "quoted" \\ $HOME \`id\``, 'line\nbreak', 'ünïcode 😀', "a'); alert(1); ('"];

describe('experiment snippets', () => {
  for (const name of NAMES) {
    it(`SDK snippet asks getVariant for the exact name ${JSON.stringify(name)} and branches on every variant`, () => {
      const variants = ['control', "tr'eat", 'green'];
      const calls: unknown[][] = [];
      const shown: string[] = [];
      const tally = { getVariant: (...args: unknown[]) => (calls.push(args), variants[1]) };
      // The comments mark where each variant's code goes: turn them into records of which branch ran.
      const code = sdkSnippet({ name, variants }).replace(/\/\/ show (.*)$/gm, (_, what: string) => `shown.push(${JSON.stringify(what)});`);
      new Function('tally', 'shown', code)(tally, shown);
      expect(calls).toEqual([[name, 'control']]);
      expect(shown).toEqual(["tr'eat"]);
    });

    it(`HTTP snippet sends the exact name ${JSON.stringify(name)} in the exposure and asks the right URL`, () => {
      const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; printf '\\n\\0'; }\nTALLY_KEY=k\n${restSnippet({ name }, 'https://api.example.com')}`;
      const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const [assign, exposure] = run.stdout.split('\n\0').map((call) => call.split('\0').filter(Boolean));
      expect(assign).toEqual(['-H', 'Authorization: Bearer k', 'https://api.example.com/v1/experiments?user_id=USER_ID']);
      expect(exposure!.slice(0, 5)).toEqual(['-H', 'Authorization: Bearer k', '-H', 'Content-Type: application/json', 'https://api.example.com/v1/events']);
      expect(JSON.parse(exposure![6]!)).toEqual({
        events: [{ name: '$experiment_exposure', user_id: 'USER_ID', properties: { $experiment_name: name, $variant: '<variant>' } }],
      });
    });
  }
});

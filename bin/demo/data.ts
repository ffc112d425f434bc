/**
 * The demo's made-up shop (`npm run demo`): a deterministic history of visitors for the Insights
 * pages, and the events of an experiment's users for its results. Pure: the same options give the
 * same events, so a test can count what the pages must show.
 *
 * Each visitor arrives on one of the last `days` days as an anonymous ID, views pages, and may sign up
 * (`signup`, then an `$identify` linking the anonymous ID to a user ID, with an email and a name). On
 * later days it returns with a falling probability (a retention curve) and views products (`category`
 * property), adds to cart and buys (`purchase` with a `revenue` property).
 */

import { prng } from '../prng';

export interface DemoEvent {
  name: string;
  user_id: string;
  timestamp: string;
  platform: string;
  app_version: string;
  properties?: Record<string, string | number>;
}

export interface HistoryOptions {
  users: number;
  days: number;
  /** The demo's "now": history ends at it, and the first day is `days - 1` UTC days before. */
  nowMs: number;
  seed: number;
}

type Step = [name: string, properties?: Record<string, string | number>];

const DAY_MS = 86_400_000;
const PLATFORMS = [
  ['web', 0.5],
  ['ios', 0.3],
  ['android', 0.2],
] as const;
const VERSIONS = ['2.3.0', '2.4.0', '2.4.1'] as const;
const CATEGORIES = ['shoes', 'shirts', 'bags'] as const;
const NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'] as const;

const pick = <T>(rand: () => number, weighted: ReadonlyArray<readonly [T, number]>): T => {
  let x = rand();
  for (const [value, weight] of weighted) if ((x -= weight) < 0) return value;
  return weighted.at(-1)![0];
};
const between = (rand: () => number, low: number, high: number) => low + Math.floor(rand() * (high - low + 1));

/** The visitors' events, in time order per visitor. */
export function shopHistory(options: HistoryOptions): DemoEvent[] {
  const rand = prng(options.seed);
  const firstDay = Math.floor(options.nowMs / DAY_MS) - (options.days - 1);
  const events: DemoEvent[] = [];
  for (let i = 1; i <= options.users; i++) {
    const platform = pick(rand, PLATFORMS);
    const appVersion = VERSIONS[between(rand, 0, VERSIONS.length - 1)]!;
    const anonymousId = `demo-anon-${i}`;
    const userId = `demo-user-${i}`;
    const arrival = firstDay + between(rand, 0, options.days - 1);
    let id = anonymousId;
    // Events of a day, in order: each a few minutes after the one before, from a random hour. An
    // `$identify` step links the anonymous ID to the user ID, which sends the rest.
    const day = (dayNumber: number, steps: Step[]) => {
      let at = dayNumber * DAY_MS + between(rand, 7, 21) * 3_600_000 + between(rand, 0, 3_599) * 1000;
      for (const [name, properties] of steps) {
        if (at > options.nowMs) return;
        events.push({
          name,
          user_id: name === '$identify' ? userId : id,
          timestamp: new Date(at).toISOString(),
          platform,
          app_version: appVersion,
          ...(properties ? { properties } : {}),
        });
        if (name === '$identify') id = userId;
        at += between(rand, 20, 600) * 1000;
      }
    };
    const visit = (): Step[] => {
      const steps: Step[] = [];
      for (let p = between(rand, 1, 4); p > 0; p--) steps.push(['page_view']);
      if (rand() < 0.7) {
        const category = CATEGORIES[between(rand, 0, CATEGORIES.length - 1)]!;
        steps.push(['product_view', { category }]);
        if (rand() < 0.4) {
          steps.push(['add_to_cart', { category }]);
          if (rand() < 0.5) steps.push(['purchase', { category, revenue: between(rand, 5, 120) }]);
        }
      }
      return steps;
    };

    const signup: Step[] =
      rand() < 0.6
        ? [
            ['signup', { plan: rand() < 0.2 ? 'pro' : 'free' }],
            ['$identify', { $anonymous_id: anonymousId, email: `${userId}@example.com`, name: `${NAMES[between(rand, 0, NAMES.length - 1)]} ${i}` }],
          ]
        : [];
    day(arrival, [['page_view'], ...signup, ...visit()]);
    for (let d = arrival + 1, k = 1; d <= firstDay + options.days - 1; d++, k++) {
      if (rand() < 0.1 + 0.4 * 0.8 ** k) day(d, visit());
    }
  }
  return events;
}

export interface ExperimentUser {
  user_id: string;
  variant: string;
}

/**
 * An experiment's users after its start: each sees it (`$experiment_exposure`, as an SDK records it)
 * and buys with its variant's rate (the first variant: 10 %, every other: 14 %); some hit a checkout
 * error. Enrollment is spread over the run from `startMs` to `endMs`: user i of n enrolls at a random
 * moment of the i-th n-th of it (its purchase 500 ms later), so the results' series grows day by day
 * and every event falls within the run.
 */
export function experimentEvents(
  experimentName: string,
  users: ExperimentUser[],
  variants: readonly string[],
  run: { startMs: number; endMs: number },
  seed: number,
): DemoEvent[] {
  const rand = prng(seed);
  const events: DemoEvent[] = [];
  // A second kept free at the end for the purchases after the last exposure.
  const span = Math.max(run.endMs - run.startMs - 1000, users.length);
  users.forEach(({ user_id, variant }, i) => {
    const enrolled = run.startMs + 1 + Math.floor(((i + rand()) / users.length) * span);
    const at = (offset: number) => new Date(enrolled + offset).toISOString();
    const platform = pick(rand, PLATFORMS);
    const base = { user_id, platform, app_version: VERSIONS.at(-1)! };
    events.push({ ...base, name: '$experiment_exposure', timestamp: at(0), properties: { $experiment_name: experimentName, $variant: variant } });
    const buys = rand() < (variant === variants[0] ? 0.1 : 0.14);
    if (buys) events.push({ ...base, name: 'purchase', timestamp: at(500), properties: { revenue: between(rand, 5, 120) } });
    if (rand() < 0.03) events.push({ ...base, name: 'checkout_error', timestamp: at(250) });
  });
  return events;
}

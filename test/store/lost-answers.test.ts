/**
 * Conditional writes whose answer is lost: the write lands in DynamoDB, the client never hears so and
 * retries (the AWS SDK's standard retries), and the retry fails its condition on the write's own
 * effect. Each store must recognise its own write (and only its own) and count it as done. A proxy in
 * front of dynalite loses the chosen answers (test/helpers/answer-losing-proxy.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../lambdas/domain/api-key';
import { experimentNameSpellings, type Experiment } from '../../lambdas/domain/experiment';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isTransient, OutcomeUnknownError } from '../../lambdas/domain/transient-error';
import { NameTakenError, StatusConflictError } from '../../lambdas/ports/experiment-store';
import type { IdentityJournal, PointerChange } from '../../lambdas/ports/identity-store';
import { DynamoApiKeyStore } from '../../lambdas/store/api-key-store';
import { DynamoAssignmentStore } from '../../lambdas/store/assignment-store';
import { claimKey, DynamoEventLedger } from '../../lambdas/store/event-ledger';
import { CLAIM_GRACE_MS, DynamoExperimentStore } from '../../lambdas/store/experiment-store';
import { DynamoIdentityStore } from '../../lambdas/store/identity-store';
import { DynamoProjectStore } from '../../lambdas/store/project-store';
import { startAnswerLosingProxy, type AnswerLosingProxy } from '../helpers/answer-losing-proxy';
import { noBackoff, startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let proxy: AnswerLosingProxy;
/** Stores on a client whose calls go through the proxy (retries without waiting). */
let lossy: ReturnType<typeof stores>;
/** The same stores on a direct client: another request, or the test reading the truth. */
let direct: ReturnType<typeof stores>;
/**
 * Stores on a client of their own through the proxy: for a test that loses many answers, so that it
 * neither drains nor depends on the shared client's retry quota (each retry after a reset costs 14 of 500).
 */
const ownLossy = () => stores(dynamo.client({ endpoint: proxy.endpoint, retryStrategy: noBackoff() }));
let project = 0;
const nextProject = () => `p${++project}`;

function stores(ddb: TestDynamo['ddb']) {
  return {
    experiments: new DynamoExperimentStore(ddb, dynamo.table('experiments')),
    identities: new DynamoIdentityStore(ddb, dynamo.table('identities')),
    keys: new DynamoApiKeyStore(ddb, dynamo.table('api_keys')),
    projects: new DynamoProjectStore(ddb, dynamo.table('projects')),
    assignments: new DynamoAssignmentStore(ddb, dynamo.table('assignments')),
  };
}

beforeAll(async () => {
  dynamo = await startTestDynamo();
  proxy = await startAnswerLosingProxy(dynamo.endpoint);
  lossy = stores(dynamo.client({ endpoint: proxy.endpoint, retryStrategy: noBackoff() }));
  direct = stores(dynamo.ddb);
});
afterAll(async () => {
  await proxy.close();
  await dynamo.close();
});

let lostBefore = 0;
afterEach(() => {
  lostBefore = proxy.lost;
});
/** Answers lost by the proxy during the current test. */
const lostNow = () => proxy.lost - lostBefore;

function experiment(projectId: string, name: string): Experiment {
  return {
    id: randomUUID(),
    project_id: projectId,
    name,
    variants: ['a', 'b'],
    weights: null,
    goal_event: 'purchase',
    metrics: [],
    sequential: true,
    correction: 'holm',
    cuped: true,
    cuped_lookback_days: 14,
    planned_users: null,
    description: null,
    status: 'created',
    created_at: new Date().toISOString(),
    started_at: null,
    stopped_at: null,
  };
}

/** The wire-format string value of an attribute of a request's Item. */
/** A new key of a new project (its hash is unique, so the proxy can pick its put out). */
function apiKey(): ApiKeyRecord {
  return {
    id: randomUUID(),
    project_id: nextProject(),
    key_hash: randomUUID(),
    key_prefix: 'tk_live_0123',
    plan: 'free',
    rate_limit_per_minute: 60,
    allowed_origins: [],
    allowed_bundle_ids: [],
    created_at: new Date().toISOString(),
  };
}

/** The experiment holding a name's spellings: a new experiment of that name is refused, naming it. */
async function nameHolder(projectId: string, name: string): Promise<string | undefined> {
  const clash = await direct.experiments.create(experiment(projectId, name)).catch((e: unknown) => e);
  expect(clash).toBeInstanceOf(NameTakenError);
  return (clash as NameTakenError).ownerId;
}

const itemString = (body: Record<string, any>, name: string): string | undefined => body.Item?.[name]?.S;
const isExperimentPut = (body: Record<string, any>) => itemString(body, 'sk')?.startsWith('exp#') ?? false;
const isTransition = (body: Record<string, any>) => body.ConditionExpression === '#status = :from';
const isPatch = (body: Record<string, any>) => String(body.ConditionExpression).startsWith('#status = :created');
const isExperimentRead = (body: Record<string, any>) => body.Key?.sk?.S?.startsWith('exp#') ?? false;

describe('experiments', () => {
  it('a create whose put answer is lost succeeds, and keeps its name claims', async () => {
    const p = nextProject();
    const first = experiment(p, 'Checkout Flow');
    proxy.lose({ operation: 'PutItem', when: isExperimentPut });
    await lossy.experiments.create(first);
    expect(lostNow()).toBe(1);
    expect(await direct.experiments.get(p, first.id)).toEqual(first);
    // The name is still taken: a later experiment cannot have it.
    expect(await nameHolder(p, 'checkout-flow')).toBe(first.id);
  });

  it('a create whose every answer is lost (the last attempt ends in a reset) still finds its item and keeps its claims', async () => {
    const p = nextProject();
    const first = experiment(p, 'Hero Banner');
    proxy.lose({ operation: 'PutItem', when: isExperimentPut, times: 4 });
    await lossy.experiments.create(first);
    expect(lostNow()).toBe(4);
    expect(await direct.experiments.get(p, first.id)).toEqual(first);
    await expect(direct.experiments.create(experiment(p, 'hero__banner'))).rejects.toBeInstanceOf(NameTakenError);
  });

  it('a start and a stop whose answers are lost (a reset, then a 500) answer with the change, not 409', async () => {
    const p = nextProject();
    const exp = experiment(p, 'Pricing Page');
    await direct.experiments.create(exp);
    proxy.lose({ operation: 'UpdateItem', when: isTransition });
    const started = await lossy.experiments.transition(p, exp.id, 'start', '2026-03-01T10:00:00.000Z');
    expect(started).toEqual({ ...exp, status: 'running', started_at: '2026-03-01T10:00:00.000Z' });
    proxy.lose({ operation: 'UpdateItem', when: isTransition, as: 'internal-error' });
    const stopped = await lossy.experiments.transition(p, exp.id, 'stop', '2026-03-02T10:00:00.000Z');
    expect(stopped).toEqual({ ...started, status: 'stopped', stopped_at: '2026-03-02T10:00:00.000Z' });
    expect(lostNow()).toBe(2);
    // The tokens that identify the writes never leave the store.
    expect(await direct.experiments.get(p, exp.id)).toEqual(stopped);
    expect(await direct.experiments.list(p)).toEqual([stopped]);
  });

  it("a retried start that finds another request's start (its own never arrived) still answers 409", async () => {
    const p = nextProject();
    const exp = experiment(p, 'Onboarding');
    await direct.experiments.create(exp);
    proxy.lose({
      operation: 'UpdateItem',
      when: isTransition,
      lose: 'before',
      meanwhile: async () => void (await direct.experiments.transition(p, exp.id, 'start', '2026-03-01T10:00:00.000Z')),
    });
    const refused = await lossy.experiments.transition(p, exp.id, 'start', '2026-03-01T10:00:00.000Z').catch((e: unknown) => e);
    expect(lostNow()).toBe(1);
    expect(refused).toBeInstanceOf(StatusConflictError);
    expect((refused as StatusConflictError).current).toMatchObject({ status: 'running' });
  });

  it('a start that is not retried and finds the experiment running is 409, as before', async () => {
    const p = nextProject();
    const exp = experiment(p, 'Search');
    await direct.experiments.create(exp);
    await lossy.experiments.transition(p, exp.id, 'start', '2026-03-01T10:00:00.000Z');
    await expect(lossy.experiments.transition(p, exp.id, 'start', '2026-03-01T11:00:00.000Z')).rejects.toBeInstanceOf(StatusConflictError);
  });

  it('a rename whose answer is lost, with a start before the retry, is applied: the new name stays claimed, the old is released', async () => {
    const p = nextProject();
    const exp = experiment(p, 'Old Name');
    await direct.experiments.create(exp);
    proxy.lose({
      operation: 'UpdateItem',
      when: isPatch,
      meanwhile: async () => void (await direct.experiments.transition(p, exp.id, 'start', '2026-03-01T10:00:00.000Z')),
    });
    const updated = await lossy.experiments.update(exp, { name: 'New Name' });
    expect(lostNow()).toBe(1);
    expect(updated).toMatchObject({ id: exp.id, name: 'New Name', status: 'running' });
    expect(await direct.experiments.get(p, exp.id)).toEqual(updated);
    expect(await nameHolder(p, 'new_name')).toBe(exp.id);
    await direct.experiments.create(experiment(p, 'old name')); // released
  });
});

const claimsTable = () => dynamo.table('experiments');
const putClaim = (p: string, spelling: string, owner: string, claimedAt?: number) =>
  dynamo.ddb.send(
    new PutCommand({
      TableName: claimsTable(),
      Item: { project_id: p, sk: `name#${spelling}`, experiment_id: owner, ...(claimedAt === undefined ? {} : { claimed_at: claimedAt }) },
    }),
  );
const claimOwner = async (p: string, spelling: string) =>
  (await dynamo.ddb.send(new GetCommand({ TableName: claimsTable(), Key: { project_id: p, sk: `name#${spelling}` }, ConsistentRead: true }))).Item
    ?.experiment_id;

describe('experiments: a write that may have landed and cannot be read back', () => {
  /** Loses every answer of the matching write, then (once) every answer of the read that would tell. */
  function loseWriteAndReadBack(operation: string, when: (b: Record<string, any>) => boolean) {
    let readsLost = false;
    proxy.lose({
      operation,
      when,
      times: 4,
      meanwhile: async () => {
        if (readsLost) return;
        readsLost = true;
        proxy.lose({ operation: 'GetItem', when: isExperimentRead, times: 4 });
      },
    });
  }

  it('a create is unknown (transient, 503) and keeps its name claims: no second experiment gets the name', async () => {
    const p = nextProject();
    const first = experiment(p, 'Lost Twice');
    loseWriteAndReadBack('PutItem', isExperimentPut);
    const failed = await ownLossy()
      .experiments.create(first)
      .catch((e: unknown) => e);
    expect(lostNow()).toBe(8);
    expect(failed).toBeInstanceOf(OutcomeUnknownError);
    expect(isTransient(failed)).toBe(true);
    expect(await direct.experiments.get(p, first.id)).toEqual(first);
    expect(await nameHolder(p, 'lost_twice')).toBe(first.id);
  });

  it('a rename is unknown (transient) and keeps the new name claimed', async () => {
    const p = nextProject();
    const exp = experiment(p, 'Before Rename');
    await direct.experiments.create(exp);
    loseWriteAndReadBack('UpdateItem', isPatch);
    const failed = await ownLossy()
      .experiments.update(exp, { name: 'After Rename' })
      .catch((e: unknown) => e);
    expect(lostNow()).toBe(8);
    expect(failed).toBeInstanceOf(OutcomeUnknownError);
    expect(await direct.experiments.get(p, exp.id)).toMatchObject({ name: 'After Rename' });
    expect(await nameHolder(p, 'after-rename')).toBe(exp.id);
  });

  it('an API key create is unknown (transient), not "not stored"', async () => {
    const key = apiKey();
    let readsLost = false;
    proxy.lose({
      operation: 'PutItem',
      when: (b) => itemString(b, 'key_hash') === key.key_hash,
      times: 4,
      meanwhile: async () => {
        if (readsLost) return;
        readsLost = true;
        proxy.lose({ operation: 'GetItem', when: (b) => b.Key?.key_hash?.S === key.key_hash, times: 4 });
      },
    });
    await expect(ownLossy().keys.create(key)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(lostNow()).toBe(8);
    expect(await direct.keys.findByHash(key.key_hash)).toEqual(key);
  });
});

describe('experiments: name claims left by writes that did not land', () => {
  it('a claim older than the grace whose experiment does not exist is taken over (also one without claimed_at)', async () => {
    const p = nextProject();
    await putClaim(p, 'Abandoned', randomUUID(), Date.now() - CLAIM_GRACE_MS - 1000);
    await putClaim(p, 'abandoned', randomUUID()); // written before claims had claimed_at
    const exp = experiment(p, 'Abandoned');
    await direct.experiments.create(exp);
    expect(await claimOwner(p, 'Abandoned')).toBe(exp.id);
    expect(await claimOwner(p, 'abandoned')).toBe(exp.id);
    expect(await direct.experiments.get(p, exp.id)).toEqual(exp);
  });

  it('a young claim without its experiment is a create in flight: never taken', async () => {
    const p = nextProject();
    const inFlight = randomUUID();
    await putClaim(p, 'In Flight', inFlight, Date.now() - CLAIM_GRACE_MS + 5000);
    expect(await nameHolder(p, 'In Flight')).toBe(inFlight);
    expect(await claimOwner(p, 'In Flight')).toBe(inFlight);
  });

  it('an old claim whose experiment still has the name is never taken; one whose experiment was renamed is', async () => {
    const p = nextProject();
    const holder = experiment(p, 'Kept Name');
    await direct.experiments.create(holder);
    await putClaim(p, 'Kept Name', holder.id, Date.now() - 10 * CLAIM_GRACE_MS);
    await expect(direct.experiments.create(experiment(p, 'Kept Name'))).rejects.toBeInstanceOf(NameTakenError);
    // A rename whose outcome was unknown left the old name claimed by an experiment now named otherwise.
    const renamed = experiment(p, 'Renamed Since');
    await direct.experiments.create(renamed);
    await putClaim(p, 'Old Spelling', renamed.id, Date.now() - 2 * CLAIM_GRACE_MS);
    const taker = experiment(p, 'Old Spelling');
    await direct.experiments.create(taker);
    expect(await claimOwner(p, 'Old Spelling')).toBe(taker.id);
  });
});

describe('experiments: an edit is conditional on the edit it read', () => {
  it("an edit retried after its answer was lost does not land again over another edit: 409, and the other edit's name stays claimed", async () => {
    const p = nextProject();
    const exp = experiment(p, 'Name Zero');
    await direct.experiments.create(exp);
    proxy.lose({
      operation: 'UpdateItem',
      when: isPatch,
      // A's rename to Name One landed; B renames to Name Two (releasing Name One) before A's retry.
      meanwhile: async () => void (await direct.experiments.update(exp, { name: 'Name Two' })),
    });
    const refused = await lossy.experiments.update(exp, { name: 'Name One' }).catch((e: unknown) => e);
    expect(lostNow()).toBe(1);
    expect(refused).toBeInstanceOf(StatusConflictError);
    expect((refused as StatusConflictError).current).toMatchObject({ name: 'Name Two', status: 'created' });
    expect(await direct.experiments.get(p, exp.id)).toMatchObject({ name: 'Name Two' });
    expect(await nameHolder(p, 'name_two')).toBe(exp.id);
    await direct.experiments.create(experiment(p, 'Name One')); // free: nothing holds it
    // A cannot tell that its first attempt landed (B's token replaced A's), so the claim of the name
    // that attempt dropped stays; the experiment no longer has that name, so it is taken over once old.
    await expect(direct.experiments.create(experiment(p, 'Name Zero'))).rejects.toBeInstanceOf(NameTakenError);
    for (const spelling of experimentNameSpellings('Name Zero')) await putClaim(p, spelling, exp.id, Date.now() - CLAIM_GRACE_MS - 1000);
    await direct.experiments.create(experiment(p, 'Name Zero'));
  });

  it('an edit of an item edited before this change (no token read) and one of an edited item both apply', async () => {
    const p = nextProject();
    const exp = experiment(p, 'Edited Twice');
    await direct.experiments.create(exp);
    expect(await lossy.experiments.update(exp, { description: 'one' })).toMatchObject({ description: 'one' });
    expect(await lossy.experiments.update(exp, { name: 'Edited Thrice' })).toMatchObject({ name: 'Edited Thrice', description: 'one' });
    expect(await direct.experiments.get(p, exp.id)).toMatchObject({ name: 'Edited Thrice', description: 'one' });
  });
});

describe('identities', () => {
  /** A journal that keeps every line, as the identity stream does. */
  function journal(): { journal: IdentityJournal; lines: PointerChange[] } {
    const lines: PointerChange[] = [];
    return { lines, journal: { beforeMerge: async (c) => void lines.push(c), moved: async (cs) => void lines.push(...cs) } };
  }
  const tableItem = async (p: string, id: string) =>
    (await dynamo.ddb.send(new GetCommand({ TableName: dynamo.table('identities'), Key: { pk: `${p}#${id}` }, ConsistentRead: true }))).Item!;
  /** The stream's pointer and version of an ID: its highest-version line. */
  const streamed = (lines: PointerChange[], id: string) => {
    const line = lines.filter((l) => l.id === id).sort((a, b) => b.version - a.version)[0];
    return line && { canonical_id: line.canonical_id, version: line.version };
  };
  /**
   * a2 (seen first) and a1 are roots; m is linked to a1 (created pointing at it, version 1). Linking
   * a2 and a1 then moves a1 (the loser root) to a2, and re-points its member m at a2.
   */
  async function twoGroups(p: string, stream: IdentityJournal) {
    await direct.identities.observe(p, ['a2'], 500);
    await direct.identities.observe(p, ['a1'], 1000);
    await direct.identities.link(p, 'a1', 'm', 2000, stream);
  }

  it('a member re-point whose answer is lost is journalled: the stream has every pointer change the table committed', async () => {
    const p = nextProject();
    const { journal: stream, lines } = journal();
    await twoGroups(p, stream);
    proxy.lose({ operation: 'UpdateItem', when: (b) => b.ConditionExpression === 'canonical_id = :from' });
    const result = await lossy.identities.link(p, 'a2', 'a1', 3000, stream);
    expect(lostNow()).toBe(1);
    expect(result).toEqual({ canonical: 'a2', moved: ['a1', 'm'] });
    expect(await tableItem(p, 'm')).toMatchObject({ canonical_id: 'a2', version: 2 });
    for (const id of ['a1', 'm']) {
      const item = await tableItem(p, id);
      expect(streamed(lines, id), id).toEqual({ canonical_id: item.canonical_id, version: item.version });
    }
    expect(lines.at(-1)).toEqual({ id: 'm', canonical_id: 'a2', version: 2, reason: 'merge' });
  });

  /** twoGroups with two members of a1: m1 and m2. */
  async function twoGroupsTwoMembers(p: string, stream: IdentityJournal) {
    await twoGroups(p, stream);
    await direct.identities.link(p, 'a1', 'm2', 2100, stream);
  }
  const isRepointOf = (p: string, id: string) => (b: Record<string, any>) => b.ConditionExpression === 'canonical_id = :from' && b.Key?.pk?.S === `${p}#${id}`;

  it('a member re-point whose answer is lost and whose read-back fails does not fail the link: the other members are journalled', async () => {
    const p = nextProject();
    const { journal: stream, lines } = journal();
    await twoGroupsTwoMembers(p, stream);
    let readsLost = false;
    proxy.lose({
      operation: 'UpdateItem',
      when: isRepointOf(p, 'm'),
      meanwhile: async () => {
        if (readsLost) return;
        readsLost = true;
        proxy.lose({ operation: 'GetItem', when: (b) => b.Key?.pk?.S === `${p}#m`, times: 4 });
      },
    });
    const result = await ownLossy().identities.link(p, 'a2', 'a1', 3000, stream);
    expect(lostNow()).toBe(5);
    // m's re-point committed but could not be confirmed: not reported, no line (its stream pointer
    // chains through a1, which points at a2).
    expect(result).toEqual({ canonical: 'a2', moved: ['a1', 'm2'] });
    expect(await tableItem(p, 'm')).toMatchObject({ canonical_id: 'a2', version: 2 });
    expect(streamed(lines, 'm2')).toEqual({ canonical_id: 'a2', version: 2 });
    expect(streamed(lines, 'm')).toEqual({ canonical_id: 'a1', version: 1 });
    expect(streamed(lines, 'a1')).toEqual({ canonical_id: 'a2', version: 1 });
  });

  it('a member re-point that fails fails the link, but the members that moved are journalled first', async () => {
    const p = nextProject();
    const { journal: stream, lines } = journal();
    await twoGroupsTwoMembers(p, stream);
    proxy.lose({ operation: 'UpdateItem', when: isRepointOf(p, 'm'), lose: 'before', times: 4 });
    await expect(ownLossy().identities.link(p, 'a2', 'a1', 3000, stream)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(lostNow()).toBe(4);
    expect(await tableItem(p, 'm2')).toMatchObject({ canonical_id: 'a2', version: 2 });
    expect(streamed(lines, 'm2')).toEqual({ canonical_id: 'a2', version: 2 });
    expect(await tableItem(p, 'm')).toMatchObject({ canonical_id: 'a1', version: 1 });
  });

  it("a root merge whose answer is lost goes on to re-point the loser's members", async () => {
    const p = nextProject();
    const { journal: stream, lines } = journal();
    await twoGroups(p, stream);
    proxy.lose({ operation: 'UpdateItem', when: (b) => b.ConditionExpression === 'canonical_id = :self' });
    const result = await lossy.identities.link(p, 'a2', 'a1', 3000, stream);
    expect(lostNow()).toBe(1);
    expect(result).toEqual({ canonical: 'a2', moved: ['a1', 'm'] });
    expect(await tableItem(p, 'a1')).toMatchObject({ canonical_id: 'a2', version: 1 });
    expect(await tableItem(p, 'm')).toMatchObject({ canonical_id: 'a2', version: 2 });
    expect(lines.filter((l) => l.id === 'a1')).toEqual([{ id: 'a1', canonical_id: 'a2', version: 1, reason: 'link' }]);
    expect(streamed(lines, 'm')).toEqual({ canonical_id: 'a2', version: 2 });
  });

  it('a linked create whose answer is lost is its own write: version 1 and its one line, no re-assertion', async () => {
    const p = nextProject();
    const { journal: stream, lines } = journal();
    await direct.identities.observe(p, ['anon'], 1000);
    proxy.lose({ operation: 'PutItem', when: (b) => b.Item?.version !== undefined });
    const canonical = await lossy.identities.observe(p, ['anon', 'user'], 2000, { links: [['anon', 'user']], journal: stream });
    expect(lostNow()).toBe(1);
    expect(canonical.get('user')).toBe('anon');
    expect(await tableItem(p, 'user')).toMatchObject({ canonical_id: 'anon', version: 1, first_seen_ms: 2000 });
    expect(lines).toEqual([{ id: 'user', canonical_id: 'anon', version: 1, reason: 'link' }]);
  });

  it('a retried linked create that finds the ID created by another request (its own never arrived) re-asserts it, as before', async () => {
    const p = nextProject();
    const { journal: stream, lines } = journal();
    await direct.identities.observe(p, ['anon'], 1000);
    proxy.lose({
      operation: 'PutItem',
      when: (b) => b.Item?.version !== undefined,
      lose: 'before',
      meanwhile: async () => void (await direct.identities.observe(p, ['user'], 1500)),
    });
    await lossy.identities.observe(p, ['anon', 'user'], 2000, { links: [['anon', 'user']], journal: stream });
    expect(lostNow()).toBe(1);
    // The line journalled before the put (version 1 → anon) never committed: the table's pointer is
    // journalled again above it.
    const item = await tableItem(p, 'user');
    expect(item).toMatchObject({ canonical_id: 'user', version: 2, first_seen_ms: 1500 });
    expect(streamed(lines, 'user')).toEqual({ canonical_id: 'user', version: 2 });
  });
});

describe('events ledger (already handled: a claim whose owner is this request is its own)', () => {
  it('a claim whose answer is lost is claimed, not in flight against itself', async () => {
    const p = nextProject();
    const ledger = new DynamoEventLedger(dynamo.client({ endpoint: proxy.endpoint, retryStrategy: noBackoff() }), dynamo.table('events'));
    proxy.lose({ operation: 'PutItem', when: (b) => b.Item?.pk?.S === claimKey(p, 'k1') });
    expect(await ledger.claim(p, 'k1', 'request-1', Date.now())).toBe('claimed');
    expect(lostNow()).toBe(1);
    expect(await new DynamoEventLedger(dynamo.ddb, dynamo.table('events')).claim(p, 'k1', 'request-2', Date.now())).toBe('in_flight');
  });
});

describe('projects, keys and assignments', () => {
  it('a project create whose answer is lost succeeds', async () => {
    const created = { id: randomUUID(), name: 'lost answer', created_at: new Date().toISOString() };
    proxy.lose({ operation: 'PutItem', when: (b) => itemString(b, 'id') === created.id });
    await lossy.projects.create(created);
    expect(lostNow()).toBe(1);
    expect(await direct.projects.get(created.id)).toEqual(created);
  });

  it('a project create that finds another project under its ID (its own never arrived) still fails', async () => {
    const id = randomUUID();
    proxy.lose({
      operation: 'PutItem',
      when: (b) => itemString(b, 'id') === id,
      lose: 'before',
      meanwhile: () => direct.projects.create({ id, name: 'other', created_at: '2026-01-01T00:00:00.000Z' }),
    });
    await expect(lossy.projects.create({ id, name: 'mine', created_at: '2026-01-02T00:00:00.000Z' })).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(lostNow()).toBe(1);
  });

  it('an API key create whose answer is lost succeeds', async () => {
    const key = apiKey();
    proxy.lose({ operation: 'PutItem', when: (b) => itemString(b, 'key_hash') === key.key_hash });
    await lossy.keys.create(key);
    expect(lostNow()).toBe(1);
    expect(await direct.keys.findByHash(key.key_hash)).toEqual(key);
  });

  it('an assignment whose answer is lost returns its own variant (safe before this change: the loser reads the stored one)', async () => {
    const p = nextProject();
    proxy.lose({ operation: 'PutItem', when: (b) => itemString(b, 'pk')?.startsWith(`${p}#`) ?? false });
    expect(await lossy.assignments.assign(p, { experiment_id: 'e1', user_id: 'u1', variant: 'b' }, '2026-03-01T00:00:00.000Z')).toBe('b');
    expect(lostNow()).toBe(1);
    expect(await direct.assignments.getMany(p, ['e1'], 'u1')).toEqual(new Map([['e1', 'b']]));
  });
});

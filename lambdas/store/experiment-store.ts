/**
 * Experiments on DynamoDB: name claims by conditional put, transitions by conditional update.
 *
 * An experiment claims every spelling of its name (experimentNameSpellings: as configured, Tally's
 * snake_case, the MGM SDKs' snake_case), one item `name#<spelling>` each, so no two experiments of a
 * project share any spelling and an exposure or super property always names at most one of them.
 * Without transactions: claims are taken one by one and released again when a later one fails.
 *
 * Every write may be sent more than once (the AWS SDK retries a call whose answer was lost), so a
 * conditional write can fail on its own earlier attempt. Each one therefore carries
 * what identifies it, and a failure that may hide a landed write (mayHaveLanded: a
 * ConditionalCheckFailedException of a retried call, or a last attempt lost in transit) reads the item
 * (consistently) before it is believed:
 *  - create: the item's key holds the experiment ID, a fresh UUID per create, so an item under it with
 *    this create's `created_at` is this create's;
 *  - update: `update_token`, a fresh UUID the update sets (a later update replaces it);
 *  - start and stop: `start_token` and `stop_token`, each set once by the transition that made it.
 * A name claim needs none: its condition already accepts a claim of the same experiment.
 * The tokens are never returned (strip).
 *
 * When a write may have landed and the read that would tell also fails, the outcome is unknown: the
 * claims are kept (releasing them could leave a stored experiment's name free for another) and the
 * call fails with an OutcomeUnknownError (transient: 503, retry). A claim left so by a write that did not land is
 * taken over later: a claim whose experiment does not exist or no longer has that spelling, and
 * which is older than CLAIM_GRACE_MS (`claimed_at`; a claim without it counts as old), may be taken
 * by another experiment with a put conditional on the stale claim's `experiment_id` and `claimed_at`.
 * Claims are taken before the item is written, so a young claim without its item is a create or
 * rename in flight and is never taken; the grace is six times the 10 s Lambda timeout (the stack's
 * functionTimeout default), so no request that took a claim is still running when it ends.
 *
 * An edit is conditional on the `update_token` it read (optimistic concurrency; an item never edited
 * has none): it reads the item, works out the name claims from what it read, and writes only if no
 * other edit came between. So an edit retried after its answer was lost cannot land again on top of
 * a later edit (which would leave its name unclaimed and the later one's claim behind); it answers
 * StatusConflictError with the item as it is.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { experimentNameSpellings, TRANSITIONS, type Experiment, type Transition } from '../domain/experiment';
import { DEFAULT_CORRECTION, DEFAULT_CUPED, DEFAULT_CUPED_LOOKBACK_DAYS, DEFAULT_SEQUENTIAL } from '../domain/experiment-metric-fields';
import { OutcomeUnknownError } from '../domain/transient-error';
import { isConditionalCheckFailed, mayHaveLanded, queryAll } from './dynamo-client';
import { NameTakenError, StatusConflictError, type ExperimentPatch, type ExperimentStore } from '../ports/experiment-store';

const expKey = (id: string) => `exp#${id}`;
const nameKey = (spelling: string) => `name#${spelling}`;
/** Attributes that identify a write (see above); stored, never part of an Experiment. */
const TOKENS = ['update_token', 'start_token', 'stop_token'] as const;
/** How old a name claim must be before another experiment may take it over when its owner lacks it (see above). */
export const CLAIM_GRACE_MS = 60_000;

/** The outcome of a write that may have landed is unknown: keep what it claimed, answer 503 (retry). */
const unknownOutcome = (what: string, cause: unknown) =>
  new OutcomeUnknownError(`${what} may or may not have been stored: its answer was lost and reading it back failed; retry`, { cause });

export class DynamoExperimentStore implements ExperimentStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(experiment: Experiment): Promise<void> {
    const spellings = experimentNameSpellings(experiment.name);
    await this.claimSpellings(experiment.project_id, spellings, experiment.id);
    try {
      await this.ddb.send(
        new PutCommand({ TableName: this.table, Item: { ...experiment, sk: expKey(experiment.id) }, ConditionExpression: 'attribute_not_exists(sk)' }),
      );
    } catch (err) {
      // Written after all? Then the claims belong to an experiment that exists: keep them. Unknown
      // (the read failed too): keep them as well, and have the client retry.
      if (mayHaveLanded(err)) {
        const created = await this.created(experiment).catch((readErr: unknown) => {
          throw unknownOutcome('The experiment', readErr);
        });
        if (created) return;
      }
      await this.releaseSpellings(experiment.project_id, spellings, experiment.id);
      throw err;
    }
  }

  /** Whether this create's item exists (a consistent read): its key is this create's fresh experiment ID. */
  private async created(experiment: Experiment): Promise<boolean> {
    const item = await this.read(experiment.project_id, experiment.id);
    return item?.created_at === experiment.created_at;
  }

  private async read(projectId: string, id: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, sk: expKey(id) }, ConsistentRead: true }));
    return out.Item;
  }

  async get(projectId: string, id: string): Promise<Experiment | undefined> {
    const item = await this.read(projectId, id);
    return item ? strip(item) : undefined;
  }

  async list(projectId: string): Promise<Experiment[]> {
    const items = (
      await queryAll<Record<string, unknown>>(this.ddb, {
        TableName: this.table,
        KeyConditionExpression: 'project_id = :p AND begins_with(sk, :exp)',
        ExpressionAttributeValues: { ':p': projectId, ':exp': 'exp#' },
      })
    ).map(strip);
    return items.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /**
   * Applies a patch while the experiment is still created, and only if no other edit came between its
   * read and its write (the `update_token` read; see above). `current` names the experiment; the
   * claims and the result are worked out from the item as read here.
   */
  async update(current: Experiment, patch: ExperimentPatch): Promise<Experiment> {
    const { project_id: projectId, id } = current;
    const read = await this.read(projectId, id);
    if (!read) throw new Error(`experiment ${id} not found`);
    if (read.status !== 'created') throw new StatusConflictError(strip(read));
    const seen = strip(read);
    const readToken = read.update_token as string | undefined;
    const held = experimentNameSpellings(seen.name);
    const wanted = patch.name === undefined ? held : experimentNameSpellings(patch.name);
    const added = wanted.filter((s) => !held.includes(s));
    const dropped = held.filter((s) => !wanted.includes(s));
    if (added.length > 0) await this.claimSpellings(projectId, added, id);
    const next = { ...seen, ...patch };
    const token = randomUUID();
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { project_id: projectId, sk: expKey(id) },
          UpdateExpression:
            'SET #name = :name, variants = :variants, weights = :weights, goal_event = :goal, description = :description, #metrics = :metrics, #sequential = :sequential, #correction = :correction, cuped = :cuped, cuped_lookback_days = :cuped_days, planned_users = :planned, update_token = :token',
          ConditionExpression: `#status = :created AND ${readToken === undefined ? 'attribute_not_exists(update_token)' : 'update_token = :read'}`,
          // Attribute names, not words of the expression: DynamoDB reserves many English words.
          ExpressionAttributeNames: { '#name': 'name', '#status': 'status', '#metrics': 'metrics', '#sequential': 'sequential', '#correction': 'correction' },
          ExpressionAttributeValues: {
            ':name': next.name,
            ':variants': next.variants,
            ':weights': next.weights ?? null,
            ':goal': next.goal_event,
            ':description': next.description,
            ':metrics': next.metrics,
            ':sequential': next.sequential,
            ':correction': next.correction,
            ':cuped': next.cuped ?? DEFAULT_CUPED,
            ':cuped_days': next.cuped_lookback_days ?? DEFAULT_CUPED_LOOKBACK_DAYS,
            ':planned': next.planned_users ?? null,
            ':created': 'created',
            ':token': token,
            ...(readToken === undefined ? {} : { ':read': readToken }),
          },
        }),
      );
    } catch (err) {
      // Applied after all (e.g. its answer lost, then a start before the retry): keep the new claims.
      // Unknown (the read failed too): keep every claim, and have the client retry.
      const item = mayHaveLanded(err)
        ? await this.read(projectId, id).catch((readErr: unknown) => {
            throw unknownOutcome('The change', readErr);
          })
        : undefined;
      if (item?.update_token === token) {
        await this.releaseSpellings(projectId, dropped, id);
        return strip(item);
      }
      await this.releaseSpellings(projectId, added, id);
      if (isConditionalCheckFailed(err)) throw new StatusConflictError(strip(item ?? (await this.read(projectId, id))!));
      throw err;
    }
    await this.releaseSpellings(projectId, dropped, id);
    return next;
  }

  /** Moves the experiment along the state table, atomically with the check of its current status. */
  async transition(projectId: string, id: string, transition: Transition, atIso: string): Promise<Experiment> {
    const { from, to } = TRANSITIONS[transition];
    const stamp = transition === 'start' ? 'started_at' : 'stopped_at';
    const tokenName = transition === 'start' ? 'start_token' : 'stop_token';
    const token = randomUUID();
    try {
      const out = await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { project_id: projectId, sk: expKey(id) },
          UpdateExpression: `SET #status = :to, ${stamp} = :at, ${tokenName} = :token`,
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ':from': from, ':at': atIso, ':token': token },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip(out.Attributes!);
    } catch (err) {
      // This transition's own earlier attempt was applied (its answer lost): success, with the item as
      // it is now (a stop may already have followed a start).
      const item = mayHaveLanded(err) ? await this.read(projectId, id).catch(() => undefined) : undefined;
      if (item?.[tokenName] === token) return strip(item!);
      if (isConditionalCheckFailed(err)) throw new StatusConflictError(strip(item ?? (await this.read(projectId, id))!));
      throw err;
    }
  }

  /** Claims every spelling for the experiment, or none: on a clash the ones taken here are released. */
  private async claimSpellings(projectId: string, spellings: string[], id: string): Promise<void> {
    const claimed: string[] = [];
    try {
      for (const spelling of spellings) {
        await this.claimSpelling(projectId, spelling, id);
        claimed.push(spelling);
      }
    } catch (err) {
      await this.releaseSpellings(projectId, claimed, id);
      throw err;
    }
  }

  private async claimSpelling(projectId: string, spelling: string, id: string): Promise<void> {
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: { project_id: projectId, sk: nameKey(spelling), experiment_id: id, claimed_at: Date.now() },
          ConditionExpression: 'attribute_not_exists(sk) OR experiment_id = :id',
          ExpressionAttributeValues: { ':id': id },
        }),
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      const claim = await this.readClaim(projectId, spelling);
      if (claim && (await this.abandoned(projectId, spelling, claim)) && (await this.takeOver(projectId, spelling, id, claim))) return;
      throw new NameTakenError(spelling, claim?.experiment_id as string | undefined);
    }
  }

  private async readClaim(projectId: string, spelling: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, sk: nameKey(spelling) }, ConsistentRead: true }));
    return out.Item;
  }

  /**
   * A claim left by a write that did not land: older than CLAIM_GRACE_MS (or without `claimed_at`),
   * and its experiment does not exist or no longer has this spelling.
   */
  private async abandoned(projectId: string, spelling: string, claim: Record<string, unknown>): Promise<boolean> {
    const at = claim.claimed_at;
    if (typeof at === 'number' && Date.now() - at < CLAIM_GRACE_MS) return false;
    const owner = await this.read(projectId, String(claim.experiment_id));
    return !owner || !experimentNameSpellings(String(owner.name)).includes(spelling);
  }

  /** Takes an abandoned claim, unless it changed since it was read; true when the claim is now this experiment's. */
  private async takeOver(projectId: string, spelling: string, id: string, stale: Record<string, unknown>): Promise<boolean> {
    const at = stale.claimed_at;
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: { project_id: projectId, sk: nameKey(spelling), experiment_id: id, claimed_at: Date.now() },
          ConditionExpression: `experiment_id = :stale AND ${at === undefined ? 'attribute_not_exists(claimed_at)' : 'claimed_at = :at'}`,
          ExpressionAttributeValues: { ':stale': stale.experiment_id, ...(at === undefined ? {} : { ':at': at }) },
        }),
      );
      return true;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      // Its own earlier attempt (answer lost) took it, or another request did.
      return (await this.readClaim(projectId, spelling))?.experiment_id === id;
    }
  }

  private async releaseSpellings(projectId: string, spellings: string[], id: string): Promise<void> {
    for (const spelling of spellings) {
      try {
        await this.ddb.send(
          new DeleteCommand({
            TableName: this.table,
            Key: { project_id: projectId, sk: nameKey(spelling) },
            ConditionExpression: 'experiment_id = :id',
            ExpressionAttributeValues: { ':id': id },
          }),
        );
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
      }
    }
  }
}

function strip(item: Record<string, unknown>): Experiment {
  const { sk: _sk, ...rest } = item;
  for (const token of TOKENS) delete rest[token];
  // Experiments stored before weights existed have none: an equal split. Before metric settings
  // (issue 22): no metrics beyond the goal, and the defaults of sequential and correction.
  return {
    ...rest,
    weights: rest.weights ?? null,
    metrics: rest.metrics ?? [],
    sequential: rest.sequential ?? DEFAULT_SEQUENTIAL,
    correction: rest.correction === undefined ? DEFAULT_CORRECTION : rest.correction,
    // Before CUPED (docs/decisions/cuped.md): its defaults.
    cuped: rest.cuped ?? DEFAULT_CUPED,
    cuped_lookback_days: rest.cuped_lookback_days ?? DEFAULT_CUPED_LOOKBACK_DAYS,
    // Before planning (issue 22): no plan.
    planned_users: rest.planned_users ?? null,
  } as unknown as Experiment;
}

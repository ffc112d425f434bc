/** Project API keys: create (the only time the plain key is shown), list, rename (the label), revoke. */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { effectiveRateLimit, generateApiKey, hashApiKey, PLANS, type ApiKeyRecord } from '../domain/api-key';
import { normaliseOrigin } from '../domain/access';
import { isAllowedOriginPattern, KEY_LIMITS } from '../domain/key-fields';
import { textRule } from '../domain/client-text-schema';
import { OutcomeUnknownError } from '../domain/transient-error';
import { notFound } from '../http/api-error';
import { empty, json } from '../http/event';
import { jsonBody } from '../http/validate';
import { errorFields, log } from '../logging/log';
import type { ApiKeyStore, ProjectStore, RateLimitRegistry } from '../ports';
import { isGeneratedIdShape, pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';

/** Largest rate limit a key may be given (requests per minute). */
export const MAX_RATE_LIMIT_PER_MINUTE = KEY_LIMITS.maxRateLimitPerMinute;

const Origin = z
  .string({ error: 'each allowed origin must be a string' })
  .refine(isAllowedOriginPattern, 'each allowed origin must look like https://app.example.com or https://*.example.com');

/** A key's label: what it is for ("iOS app"); the text rule and the length of a project's name. */
const Label = textRule(
  z
    .string({ error: 'label must be a string (what the key is for, e.g. "iOS app")' })
    .trim()
    .min(1, 'label must not be empty: leave it out (or send null to remove it) for a key without a label')
    .max(KEY_LIMITS.labelLength, `label is longer than ${KEY_LIMITS.labelLength} characters`),
  'label',
);

export const CreateKey = z.object({
  label: Label.optional(),
  plan: z.enum(PLANS, { error: `plan must be one of ${PLANS.join(', ')}` }).default('free'),
  rate_limit_per_minute: z
    .number({ error: 'rate_limit_per_minute must be an integer' })
    .int('rate_limit_per_minute must be an integer')
    .min(1, 'rate_limit_per_minute must be at least 1')
    .max(MAX_RATE_LIMIT_PER_MINUTE, `rate_limit_per_minute must be at most ${MAX_RATE_LIMIT_PER_MINUTE}`)
    .optional(),
  allowed_origins: z.array(Origin, { error: 'allowed_origins must be an array of origins' }).max(KEY_LIMITS.maxRestrictions).default([]),
  allowed_bundle_ids: z
    .array(textRule(z.string().min(1).max(KEY_LIMITS.bundleIdLength), 'a bundle ID'), { error: 'allowed_bundle_ids must be an array of strings' })
    .max(KEY_LIMITS.maxRestrictions)
    .default([]),
});

export const UpdateKey = z.strictObject(
  { label: Label.nullable() },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? 'only label can be changed: send {"label": "iOS app"}, or {"label": null} to remove it' : undefined,
  },
);

export interface KeyDeps extends AdminDeps {
  projects: ProjectStore;
  keys: ApiKeyStore;
  rateLimits: RateLimitRegistry;
  clock: () => number;
}

/** A key as the admin API shows it: never its value or hash. */
export function publicKey(k: ApiKeyRecord) {
  return {
    id: k.id,
    key_prefix: k.key_prefix,
    label: k.label ?? null,
    plan: k.plan,
    rate_limit_per_minute: k.rate_limit_per_minute,
    allowed_origins: k.allowed_origins,
    allowed_bundle_ids: k.allowed_bundle_ids,
    created_at: k.created_at,
  };
}

export function createKeysCreateHandler(deps: KeyDeps) {
  return wrapAdmin('admin-keys-create', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const input = await jsonBody(event, CreateKey);
    const key = generateApiKey();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      project_id: project.id,
      key_hash: hashApiKey(key),
      key_prefix: key.slice(0, 12),
      plan: input.plan,
      rate_limit_per_minute: effectiveRateLimit(input.plan, input.rate_limit_per_minute),
      allowed_origins: input.allowed_origins.map((o) => normaliseOrigin(o) ?? o.toLowerCase()),
      allowed_bundle_ids: input.allowed_bundle_ids,
      created_at: new Date(deps.clock()).toISOString(),
      ...(input.label !== undefined && { label: input.label }),
    };
    // Rate limiter first: a key the authorizer accepts must already have its usage plan on AWS.
    await deps.rateLimits.register(record);
    try {
      await deps.keys.create(record);
    } catch (err) {
      // A key that may be stored keeps its usage plan: unregistering it could leave a stored key
      // without one. If the key was not stored after all, its registration is left unused.
      if (!(err instanceof OutcomeUnknownError)) {
        await deps.rateLimits.unregister(record).catch((e) => log('error', 'unregistering key failed', errorFields(e)));
      }
      throw err;
    }
    const { id, ...rest } = publicKey(record);
    return json(201, { id, key, ...rest });
  });
}

export function createKeysListHandler(deps: KeyDeps) {
  return wrapAdmin('admin-keys-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    return json(200, { keys: (await deps.keys.listByProject(project.id)).map(publicKey) });
  });
}

export interface KeyUpdateDeps extends AdminDeps {
  projects: ProjectStore;
  keys: ApiKeyStore;
}

export function createKeysUpdateHandler(deps: KeyUpdateDeps) {
  return wrapAdmin('admin-keys-update', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const keyId = pathParam(event, 'key_id');
    const { label } = await jsonBody(event, UpdateKey);
    const updated = isGeneratedIdShape(keyId) ? await deps.keys.relabel(project.id, keyId, label ?? undefined) : undefined;
    if (!updated) throw notFound(`Key ${keyId} not found in project ${project.id}`);
    return json(200, publicKey(updated));
  });
}

export function createKeysDeleteHandler(deps: KeyDeps) {
  return wrapAdmin('admin-keys-delete', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const keyId = pathParam(event, 'key_id');
    const revoked = isGeneratedIdShape(keyId) ? await deps.keys.revoke(project.id, keyId) : undefined;
    if (!revoked) throw notFound(`Key ${keyId} not found in project ${project.id}`);
    // The key is already refused (gone from the table); this only tidies the usage plan.
    await deps.rateLimits.unregister(revoked);
    return empty(204);
  });
}

/** GET /v1/experiments (assignments, or the legacy list) and GET /v1/experiments/configs. */
import { json, type HttpEvent } from '../http/event';
import { principalOf } from '../http/principal';
import { wrap } from '../http/wrap';
import { LIMITS } from '../domain/limits';
import { textProblem } from '../domain/client-text';
import { idKeyProblem } from '../domain/id-key-budget';
import { expandedVariants } from '../domain/variant-weights';
import { assignVariants } from '../services/assign-variants';
import type { ExperimentCatalog } from '../services/experiment-catalog';
import { linkIds, observeId, screenIds, type IdentityDeps } from '../services/resolve-identities';
import type { AssignmentStore } from '../ports';

/** An empty parameter counts as not sent: the spec answers 200 to every authenticated request. */
const param = (event: HttpEvent, name: string) => event.queryStringParameters?.[name] || undefined;

export interface ExperimentsDeps extends IdentityDeps {
  catalog: ExperimentCatalog;
  assignments: AssignmentStore;
  clock: () => number;
}

export function createExperimentsAssignHandler(deps: ExperimentsDeps) {
  return wrap(
    async (event: HttpEvent) => {
      const { project_id } = principalOf(event);
      const userId = param(event, 'user_id');
      const anonymousId = param(event, 'anonymous_id');
      const running = await deps.catalog.running(project_id);
      if (userId === undefined && anonymousId === undefined) {
        return json(200, { experiments: running.map((e) => ({ id: e.id, variants: expandedVariants(e.variants, e.weights) })) });
      }
      if ([userId, anonymousId].some((id) => id !== undefined && (id.length > LIMITS.maxFieldLength || textProblem('id', id) || idKeyProblem('id', id)))) {
        // Still 200 (spec), but no assignment is stored for an ID the events API would refuse.
        return json(200, { assigned_variants: {} });
      }
      const nowMs = deps.clock();
      const screened = await screenIds(
        project_id,
        [userId, anonymousId].filter((id) => id !== undefined),
        deps,
      );
      // A suppressed person (docs/privacy.md, "Suppression"): still 200, but no identity item, link
      // or assignment is stored for them, as no event of theirs is.
      if (screened.suppressed) return json(200, { assigned_variants: {} });
      let canonical: string;
      if (userId !== undefined && anonymousId !== undefined && userId !== anonymousId) {
        // Link first, so a user bucketed while anonymous keeps the variant after login.
        canonical = await linkIds(project_id, anonymousId, userId, deps, nowMs);
      } else {
        const id = (userId ?? anonymousId)!;
        canonical = await observeId(project_id, id, deps, nowMs, screened.seen);
      }
      const assigned = await assignVariants(project_id, canonical, running, deps.assignments, new Date(nowMs).toISOString());
      return json(200, { assigned_variants: assigned });
    },
    { route: 'experiments-assign', surface: 'v1' },
  );
}

export function createExperimentsConfigsHandler(deps: Pick<ExperimentsDeps, 'catalog'>) {
  return wrap(
    async (event: HttpEvent) => {
      const { project_id } = principalOf(event);
      const running = await deps.catalog.running(project_id);
      // Weights travel as repetition in the list SDKs bucket from (domain/variant-weights.ts): no client change.
      return json(200, { experiments: running.map((e) => ({ id: e.id, name: e.name, variants: expandedVariants(e.variants, e.weights) })) });
    },
    { route: 'experiments-configs', surface: 'v1' },
  );
}

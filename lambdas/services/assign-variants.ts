/**
 * Server-mode assignment: the canonical ID's stored variants, plus new sticky ones bucketed with the
 * shared rule. Costs one batched read of stored assignments, and one conditional write per new one.
 */
import { variantFor } from '../domain/bucketing';
import type { Experiment } from '../domain/experiment';
import { mapLimit } from '../domain/concurrency';
import { expandedVariants } from '../domain/variant-weights';
import type { AssignmentStore } from '../ports';

export async function assignVariants(
  projectId: string,
  canonicalId: string,
  running: Experiment[],
  assignments: AssignmentStore,
  atIso: string,
): Promise<Record<string, string>> {
  if (running.length === 0) return {};
  const stored = await assignments.getMany(
    projectId,
    running.map((e) => e.id),
    canonicalId,
  );
  const entries = await mapLimit(running, 8, async (experiment) => {
    const existing = stored.get(experiment.id);
    // A variant removed from the experiment cannot be stored for it: variants only change while created.
    if (existing !== undefined) return [experiment.name, existing] as const;
    // The expanded list, as the SDKs bucket from it, so server and device agree under weights too.
    const variant = variantFor(experiment.id, canonicalId, expandedVariants(experiment.variants, experiment.weights));
    return [experiment.name, await assignments.assign(projectId, { experiment_id: experiment.id, user_id: canonicalId, variant }, atIso)] as const;
  });
  return Object.fromEntries(entries);
}

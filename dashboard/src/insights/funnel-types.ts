/**
 * The funnels and retention results as the admin API answers them (docs/api.md "Insights"): the API's
 * own types, so the pages cannot drift from it (type-only imports add nothing to the bundle).
 */
export type { FunnelGroup, FunnelStepResult as FunnelStep, FunnelsResult } from '../../../lambdas/domain/insights/funnels-result';
export type { RetentionResult } from '../../../lambdas/domain/insights/retention-result';

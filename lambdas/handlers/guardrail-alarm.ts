/**
 * The loud side of a guardrail breached (issue 22): the GuardrailBreached metric (embedded metric
 * format, dimension FunctionName, no per-experiment dimension) that lib/alarms.ts alarms on, emitted
 * by whoever ran the computation (the scheduled job, the refresh route, the local scheduler). The
 * computation's own log line names the project and experiment (services/compute-results.ts).
 */
import { FUNCTION_DIMENSION, GUARDRAIL_BREACHED, METRICS_NAMESPACE } from '../contract/metrics';
import { emitMetric, functionName } from '../logging/metric';

/** Emits the metric with the number of experiments found breached; nothing for none. */
export function reportGuardrailsBreached(experiments: number): void {
  if (experiments <= 0) return;
  emitMetric({ namespace: METRICS_NAMESPACE, name: GUARDRAIL_BREACHED, value: experiments, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
}

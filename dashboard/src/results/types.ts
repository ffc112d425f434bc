/** The admin API's experiment and results shapes, as the pages read them (docs/identity-and-experiments.md). */
export type ExperimentStatus = 'created' | 'running' | 'stopped';

export interface Experiment {
  id: string;
  project_id: string;
  name: string;
  variants: string[];
  goal_event: string;
  description: string | null;
  status: ExperimentStatus;
  created_at: string;
  started_at: string | null;
  stopped_at: string | null;
}

export interface VariantStats {
  variant: string;
  enrolled: number;
  converted: number;
  conversion_rate: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

export interface Comparison {
  variant: string;
  control: string;
  absolute_diff: number | null;
  relative_diff: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  relative_ci_low: number | null;
  relative_ci_high: number | null;
  relative_p_value: number | null;
  chance_to_beat_control: number | null;
}

export interface SeriesPoint {
  date: string;
  as_of: string;
  variants: VariantStats[];
  comparisons: Comparison[];
}

export interface Results {
  experiment_id: string;
  status: ExperimentStatus;
  computed_at: string;
  window: { from: string; to: string };
  variants: VariantStats[];
  comparisons: Comparison[];
  srm: { p_value: number | null; flagged: boolean };
  multiple_exposures: number;
  series: SeriesPoint[];
  computation?: { engine: 'athena' | 'duckdb'; query: string };
}

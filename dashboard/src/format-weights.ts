/** Each variant once with its share of traffic, as the dashboard shows an experiment's weights. */
import type { Experiment } from './admin-types';

/** "90%", or for an equal split the exact share ("50%", "33.3%"). */
export function variantShares(experiment: Pick<Experiment, 'variants' | 'weights'>): Array<{ variant: string; share: string }> {
  const { variants, weights } = experiment;
  const equal = `${Number((100 / variants.length).toFixed(1))}%`;
  return variants.map((variant, i) => ({ variant, share: weights ? `${weights[i]}%` : equal }));
}

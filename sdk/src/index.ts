/** @tally/sdk: `Tally.init(options)` or `new TallyClient(options)`. */
import { TallyClient } from './client';
import type { TallyOptions } from './types';

export { TallyClient };
export { SDK_NAME, SDK_VERSION } from './transport';
export type { ExperimentConfig, Logger, PersistenceAdapter, Profile, Properties, ResetOptions, TallyOptions } from './types';

export function init(options: TallyOptions): TallyClient {
  return new TallyClient(options);
}

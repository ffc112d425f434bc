/** @tally/sdk: `Tally.init(options)` or `new TallyClient(options)`. */
import { TallyClient } from './client';
import type { TallyOptions } from './types';

export { TallyClient };
export { SDK_NAME, SDK_VERSION } from './transport';
export type { ExperimentConfig, FlushResult, Logger, PersistenceAdapter, Profile, Properties, ReadyResult, ResetOptions, TallyOptions } from './types';

export function init(options: TallyOptions): TallyClient {
  return new TallyClient(options);
}

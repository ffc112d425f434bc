/**
 * The running experiments of a project, as the public routes see them. On AWS each Lambda instance
 * may serve its copy for a few seconds (EXPERIMENTS_CACHE_SECONDS, default 5): a start or stop is
 * visible within that bound. Locally the cache is off, so the next request sees it.
 */
import { experimentNameSpellings, type Experiment } from '../domain/experiment';
import type { ExperimentStore } from '../ports';

export class ExperimentCatalog {
  private readonly cache = new Map<string, { at: number; experiments: Experiment[] }>();
  private readonly allCache = new Map<string, { at: number; names: Set<string> }>();

  constructor(
    private readonly store: ExperimentStore,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async running(projectId: string): Promise<Experiment[]> {
    const now = this.clock();
    const hit = this.cache.get(projectId);
    if (hit && now - hit.at < this.ttlMs) return hit.experiments;
    const experiments = (await this.store.list(projectId)).filter((e) => e.status === 'running');
    if (this.ttlMs > 0) this.cache.set(projectId, { at: now, experiments });
    return experiments;
  }

  /** Every spelling (experimentNameSpellings) of every experiment of the project, whatever its status. */
  async knownNames(projectId: string): Promise<Set<string>> {
    const now = this.clock();
    const hit = this.allCache.get(projectId);
    if (hit && now - hit.at < this.ttlMs) return hit.names;
    const names = new Set((await this.store.list(projectId)).flatMap((e) => experimentNameSpellings(e.name)));
    if (this.ttlMs > 0) this.allCache.set(projectId, { at: now, names });
    return names;
  }
}

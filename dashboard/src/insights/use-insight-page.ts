/**
 * The wiring an insight page shares (funnels, retention): the definition from the URL hash (a shared
 * link runs it; with a query ID it comes back to that query), the query followed to its end, and the
 * hash kept up to date so the page's address is shareable. The trends page does the same with its
 * own draft state.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { pathOf } from '../router';
import { readInsightHash, writeInsightHash } from './hash-state';
import { useInsightQuery } from './use-insight-query';

export function useInsightPage<R, D>(api: ApiClient, projectId: string, kind: string) {
  const path = pathOf('projects', projectId, 'insights', kind);
  const initial = useMemo(() => readInsightHash(), []);
  const [ran, setRan] = useState<D | undefined>(initial.definition as D | undefined);
  const { state, start, resume } = useInsightQuery<R>(api, projectId, kind, (queryId) =>
    writeInsightHash(path, { definition: ran, ...(queryId ? { queryId } : {}) }),
  );
  useEffect(() => {
    if (initial.definition === undefined) return;
    if (initial.queryId) resume(initial.queryId, initial.definition);
    else start(initial.definition);
  }, []);
  const run = (definition: D) => {
    setRan(definition);
    writeInsightHash(path, { definition });
    start(definition);
  };
  return { state, run, initial: initial.definition as Partial<D> | undefined };
}

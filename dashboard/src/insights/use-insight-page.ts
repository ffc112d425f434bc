/**
 * The wiring an insight page shares (funnels, retention): the definition from the URL hash (a shared
 * link runs it; with a query ID it comes back to that query), the query followed to its end, and the
 * hash kept up to date so the page's address is shareable. Navigations to the page while it is open
 * (a pasted link, back and forward) are followed: the page's form is remounted with the address's
 * definition (`formKey`) and its query started or resumed. The page's own hash writes (replaceState)
 * fire no hashchange. The trends page does the same with its own draft state.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ApiClient } from '../api';
import { pathOf } from '../router';
import { readInsightHash, writeInsightHash } from './hash-state';
import { useInsightQuery } from './use-insight-query';

/**
 * `fields`: the definition's fields the page's form shows, so their API errors appear beside them
 * (`apiError.forField`) and any other error above the form (`formError`).
 */
export function useInsightPage<R, D>(api: ApiClient, projectId: string, kind: string, fields: readonly string[]) {
  const path = pathOf('projects', projectId, 'insights', kind);
  const [navigation, setNavigation] = useState(() => ({ count: 0, hash: readInsightHash() }));
  const current = navigation.hash;
  const [ran, setRan] = useState<D | undefined>(current.definition as D | undefined);
  const { state, start, resume, reset, canRun } = useInsightQuery<R>(api, projectId, kind, (queryId) =>
    writeInsightHash(path, { definition: ran, ...(queryId ? { queryId } : {}) }),
  );
  useEffect(() => {
    const onChange = () => setNavigation((n) => ({ count: n.count + 1, hash: readInsightHash() }));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  useEffect(() => {
    if (current.definition === undefined) {
      if (navigation.count > 0) {
        setRan(undefined);
        reset();
      }
      return;
    }
    setRan(current.definition as D);
    if (current.queryId) resume(current.queryId, current.definition);
    else start(current.definition);
  }, [navigation.count]);
  const run = (definition: D) => {
    setRan(definition);
    writeInsightHash(path, { definition });
    start(definition);
  };
  const apiError = state.error instanceof ApiError ? state.error : undefined;
  const formError = state.phase === 'error' ? (apiError ? (apiError.apartFrom([...fields]) ?? undefined) : String(state.error)) : undefined;
  const answer = state.phase === 'done' ? state.answer : undefined;
  return {
    state,
    run,
    initial: current.definition as Partial<D> | undefined,
    formKey: navigation.count,
    apiError,
    formError,
    answer,
    linkProblem: current.problem,
    canRun,
  };
}

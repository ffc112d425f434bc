/**
 * Runs an insight and follows it to its end: POST the definition; while the answer is "running"
 * (202), GET its poll_url every POLL_MS. Leaving the page stops the polling (the query goes on, on
 * Athena); coming back with its ID (hash-state.ts) resumes it, and an ID no longer known (404: kept
 * 7 days) runs the definition again. Running an insight needs the analyst role (lambdas/routes.ts): for
 * a viewer `start` sends nothing (the page says why, `canRun`); following a query someone else started
 * (`resume`) needs only viewer.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type ApiClient } from '../api';
import { errorText } from '../components/async-view';
import { useCan } from '../role';
import type { InsightAnswer } from './insight-types';

export const POLL_MS = 2_000;

export interface InsightQueryState<R> {
  phase: 'idle' | 'starting' | 'running' | 'done' | 'error';
  answer?: InsightAnswer<R>;
  error?: ApiError | string;
  /** Polls made for the running query. */
  polls: number;
}

export function useInsightQuery<R>(api: ApiClient, projectId: string, kind: string, onQuery: (queryId: string | undefined) => void) {
  const [state, setState] = useState<InsightQueryState<R>>({ phase: 'idle', polls: 0 });
  const canRun = useCan('analyst');
  // Each run's number: an answer of an older run (or after unmount) is dropped.
  const run = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stop = () => {
    run.current++;
    clearTimeout(timer.current);
  };
  useEffect(() => stop, []);
  const onQueryRef = useRef(onQuery);
  onQueryRef.current = onQuery;

  const follow = useCallback(
    (mine: number, answer: InsightAnswer<R>, polls: number) => {
      if (mine !== run.current) return;
      onQueryRef.current(answer.query_id);
      if (answer.status === 'succeeded') {
        setState({ phase: 'done', answer, polls });
        return;
      }
      setState({ phase: 'running', answer, polls });
      timer.current = setTimeout(() => {
        api.get<InsightAnswer<R>>(answer.poll_url).then(
          (next) => follow(mine, next, polls + 1),
          (err: unknown) => mine === run.current && setState({ phase: 'error', answer, error: err instanceof ApiError ? err : errorText(err), polls }),
        );
      }, POLL_MS);
    },
    [api],
  );

  const start = useCallback(
    (definition: unknown) => {
      stop();
      if (!canRun) {
        setState({ phase: 'idle', polls: 0 });
        return;
      }
      const mine = run.current;
      setState({ phase: 'starting', polls: 0 });
      api.post<InsightAnswer<R>>(`/admin/v1/projects/${encodeURIComponent(projectId)}/insights/${kind}`, definition).then(
        (answer) => follow(mine, answer, 0),
        (err: unknown) => {
          if (mine !== run.current) return;
          onQueryRef.current(undefined);
          setState({ phase: 'error', error: err instanceof ApiError ? err : errorText(err), polls: 0 });
        },
      );
    },
    [api, projectId, kind, follow, canRun],
  );

  const resume = useCallback(
    (queryId: string, definition: unknown) => {
      stop();
      const mine = run.current;
      setState({ phase: 'starting', polls: 0 });
      api.get<InsightAnswer<R>>(`/admin/v1/projects/${encodeURIComponent(projectId)}/insights/queries/${queryId}`).then(
        (answer) => follow(mine, answer, 0),
        (err: unknown) => {
          if (mine !== run.current) return;
          if (err instanceof ApiError && err.status === 404) start(definition);
          else setState({ phase: 'error', error: err instanceof ApiError ? err : errorText(err), polls: 0 });
        },
      );
    },
    [api, projectId, follow, start],
  );

  /** Back to no query (a link without a definition): stops following the current one. */
  const reset = useCallback(() => {
    stop();
    setState({ phase: 'idle', polls: 0 });
  }, []);

  return { state, start, resume, reset, canRun };
}

/**
 * Loading a page's data: useAsync runs a request when its inputs change (a stale answer is dropped)
 * and AsyncView shows "Loading…", the API's error, or the data.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface AsyncState<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  /** Runs the request again (keeps showing the current data meanwhile). */
  reload: () => void;
}

export function useAsync<T>(load: () => Promise<T>, inputs: unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (mine !== latest.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (mine !== latest.current) return;
        setError(err instanceof Error ? err.message : String(err));
        setLoading(false);
      },
    );
    // The caller names the inputs, as with useEffect.
  }, [...inputs, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}

export function AsyncView<T>({ state, children }: { state: AsyncState<T>; children: (data: T) => ComponentChildren }) {
  if (state.error !== null && state.data === undefined)
    return (
      <p class="error" role="alert">
        {state.error}
      </p>
    );
  if (state.data === undefined)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  return (
    <>
      {state.error !== null && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      {children(state.data)}
    </>
  );
}

/**
 * Loading a page's data: useAsync runs a request when its inputs change (a stale answer is dropped)
 * and AsyncView shows "Loading…", the API's error, or the data.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface AsyncState<T> {
  data: T | undefined;
  /** The failed request's message (the API's own words), or null. */
  error: string | null;
  loading: boolean;
  /** Runs the request again (keeps showing the current data meanwhile); resolves once it has settled. */
  reload: () => Promise<void>;
  /** Replaces the data with a value the page already has (e.g. a change's response), dropping any request under way. */
  set: (data: T) => void;
}

/** An error's message for the page. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function useAsync<T>(load: () => Promise<T>, inputs: unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  // The newest render's request, so reload() uses the current inputs.
  const current = useRef(load);
  current.current = load;
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const value = await current.current();
      if (mine !== latest.current) return;
      setData(value);
      setError(null);
    } catch (err) {
      if (mine !== latest.current) return;
      setError(errorText(err));
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }, []);
  const set = useCallback((value: T) => {
    latest.current++;
    setData(value);
    setError(null);
    setLoading(false);
  }, []);
  useEffect(() => {
    void reload();
    // The caller names the inputs, as with useEffect.
  }, inputs);
  return { data, error, loading, reload, set };
}

/** How often a request still under way elsewhere (a deletion, an export) is read again while its page is open. */
export const UNFINISHED_REFRESH_MS = 3000;

/** Calls `reload` every few seconds while `still` holds (e.g. while a deletion is pending or running). */
export function useRefreshWhile(reload: () => Promise<void>, still: boolean): void {
  useEffect(() => {
    if (!still) return;
    const timer = setInterval(() => void reload(), UNFINISHED_REFRESH_MS);
    return () => clearInterval(timer);
  }, [still]);
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

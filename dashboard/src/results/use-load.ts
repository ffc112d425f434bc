/** Loads something from the API for a page: the value, the error, and reload(). */
import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
  set: (value: T) => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setValue(await run());
      setError(undefined);
    } catch (err) {
      setError(err);
    } finally {
      setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { value, error, loading, reload, set: setValue };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asApiError, type ApiError } from './api/errors';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads data for a page when its inputs change; an answer to an earlier input is dropped. */
export function useLoad<T>(load: () => Promise<T>, inputs: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const ticket = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (ticket !== latest.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (ticket !== latest.current) return;
        setError(asApiError(failure));
        setLoading(false);
      },
    );
  }, [...inputs, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}

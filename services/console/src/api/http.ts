import { ApiError, apiErrorOf, networkError } from './errors';

/**
 * One request to edge, from a page of the same origin: the session cookies
 * ride along by themselves (the page never holds a token), and every request
 * that changes something carries the header edge's cross-site request guard
 * requires. JSON in, JSON out; anything but 2xx is an ApiError.
 */
const CSRF_HEADERS = { 'x-service-csrf': '1' };

export type Method = 'GET' | 'POST' | 'PATCH';

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

export async function send(method: Method, path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...(method === 'GET' ? {} : CSRF_HEADERS), ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  } catch (cause) {
    throw networkError(cause);
  }
}

export async function readJson<T>(response: Response): Promise<T> {
  if (!response.ok) throw await apiErrorOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** True for the 401 of an access token that has run out (or was never there), which a refresh may cure. */
export function needsSession(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

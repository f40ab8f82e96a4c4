import { REQUEST_ID_HEADER } from '../../src/http/request-id';

export interface JsonResponse<Body = unknown> {
  status: number;
  headers: Headers;
  body: Body;
  /** The raw body text, for "never contains" assertions. */
  text: string;
}

export interface ErrorResponseBody {
  error: { message: string; type: string; code: number; request_id: string };
}

export interface CallOptions {
  method?: string;
  /** Sent as JSON; a string is sent as is (for malformed bodies). */
  body?: unknown;
  bearer?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

/** One HTTP call to edge, the way a client makes it. */
export async function call<Body = unknown>(baseUrl: string, path: string, options: CallOptions = {}): Promise<JsonResponse<Body>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: (text ? JSON.parse(text) : undefined) as Body };
}

/**
 * Asserts the error contract: status, class, a message, and a request id
 * that is 32 hex characters and equal to the response header.
 */
export function expectError(response: JsonResponse, status: number, type: string): ErrorResponseBody['error'] {
  const { error } = response.body as ErrorResponseBody;
  expect({ status: response.status, type: error.type, code: error.code }).toEqual({ status, type, code: status });
  expect(error.message).toEqual(expect.any(String));
  expect(error.request_id).toMatch(/^[0-9a-f]{32}$/);
  expect(response.headers.get(REQUEST_ID_HEADER)).toBe(error.request_id);
  return error;
}

/** Polls until the check returns a value (log lines are written just after a response ends). */
export async function eventually<T>(check: () => T | undefined, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

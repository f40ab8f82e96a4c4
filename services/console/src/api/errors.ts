import type { ErrorBody } from '@gateway/edge/contract';

/**
 * A request the API refused or that never got an answer. What the API said
 * (its message, class, status and request id) is kept whole so the page can
 * show it: the request id is what an operator needs to find the trace.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The API's error class (`validation`, `permission`, ...); `network` when no answer came. */
    readonly type: string,
    /** `x-service-request-id`; undefined when no answer came. */
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body as { error: unknown };
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string';
}

/** The error of a response that is not 2xx, from its JSON body when it has the API's shape. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const headerId = response.headers.get('x-service-request-id') ?? undefined;
  const body: unknown = await response.json().catch(() => undefined);
  if (isErrorBody(body)) return new ApiError(body.error.message, response.status, body.error.type, body.error.request_id || headerId);
  return new ApiError(`The server answered ${response.status} ${response.statusText}.`, response.status, 'internal', headerId);
}

export function networkError(cause: unknown): ApiError {
  const detail = cause instanceof Error ? ` (${cause.message})` : '';
  return new ApiError(`Could not reach the server${detail}. Check the connection and try again.`, 0, 'network', undefined);
}

export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(error instanceof Error ? error.message : String(error), 0, 'internal', undefined);
}

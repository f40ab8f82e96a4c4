import type { ApiError } from '../api/errors';

/**
 * An error as the API gave it: the message, and the request id to report it
 * by (the id finds the request's whole trace). Announced to screen readers.
 */
export function ErrorNotice({ error, title }: { error: ApiError; title?: string }) {
  return (
    <div class="notice notice-error" role="alert">
      <p class="notice-title">{title ?? 'The request failed'}</p>
      <p class="notice-message">{error.message}</p>
      <p class="notice-meta">
        {error.status > 0 ? `HTTP ${error.status} · ${error.type}` : 'No answer'}
        {error.requestId ? (
          <>
            {' · Request id '}
            <code class="request-id">{error.requestId}</code>
          </>
        ) : null}
      </p>
    </div>
  );
}

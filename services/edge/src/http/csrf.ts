import type { RequestHandler } from 'express';
import { DomainError } from '@gateway/lib/errors';
import { ACCESS_TOKEN_COOKIE, REFRESH_TOKEN_COOKIE } from '../identity/cookie';

/**
 * The header a page of this origin sends with every request that changes
 * something. A browser lets another origin's page send a custom header only
 * after a CORS preflight, which edge never grants, so its presence proves the
 * request came from a page of this origin (or from a program, which forges nothing).
 */
export const CSRF_HEADER = 'x-service-csrf';

/** The routes that take the session cookie: identity, the Console API and the agent API. */
export const COOKIE_AUTHENTICATED_PATHS = ['/api/auth/v1', '/api/v1/orgs', '/api/agent'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const COOKIE_NAMES = [ACCESS_TOKEN_COOKIE, REFRESH_TOKEN_COOKIE];

function carriesSessionCookie(cookieHeader: string | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(';').some((pair) => COOKIE_NAMES.includes(pair.split('=', 1)[0]?.trim() ?? ''));
}

function refused(reason: string): DomainError {
  return new DomainError(
    'permission',
    `Cross-site request refused: a request that changes something with the session cookie must come from this site's own pages and carry the header "X-Service-CSRF: 1".`,
    { internalReason: reason, reasonCode: 'csrf' },
  );
}

/**
 * Cross-site request forgery guard for every request that changes something
 * on the strength of a cookie. A browser attaches cookies to requests other
 * sites make (SameSite=Lax still allows a sibling subdomain, which is the
 * same site), so such a request must show it came from this origin: the
 * custom header above, and `Sec-Fetch-Site: same-origin` when the browser
 * says where it came from. A request with an Authorization header is
 * authenticated by it, not by a cookie (a cross-site page cannot set one),
 * and one with no session cookie has nothing to forge: both pass unchanged,
 * so API clients with bearer tokens see no difference.
 */
export const refuseCrossSiteRequests: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method) || req.headers.authorization !== undefined || !carriesSessionCookie(req.headers.cookie)) {
    next();
    return;
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw refused(`sec-fetch-site ${String(site)}`);
  if (req.headers[CSRF_HEADER] !== '1') throw refused(`no ${CSRF_HEADER} header`);
  next();
};

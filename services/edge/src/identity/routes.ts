import type { Express, Request, Response } from 'express';
import type { Session } from '@gateway/proto/gen/gateway/auth/v1/auth';
import {
  TOKEN_DELIVERY_HEADER,
  logoutBodySchema,
  passwordGrantSchema,
  refreshGrantSchema,
  tokenQuerySchema,
  type CookieSessionResponse,
  type TokenResponse,
  type UserJson,
} from '../contract';
import { PASSWORD_GRANT_DEADLINE_MS } from '../config';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { present, toUserJson } from '../mappers';
import {
  accessTokenCookie,
  clearedAccessTokenCookie,
  clearedRefreshTokenCookie,
  refreshTokenCookie,
  refreshTokenFromCookie,
} from './cookie';
import { requireSession } from './session';

/** The failed-login throttle counts per source; behind a proxy, TRUST_PROXY decides what req.ip is. */
function sourceAddress(req: Request): string {
  return req.ip ?? '';
}

/**
 * Where the tokens go: `body` (GoTrue's response, for programs; the access
 * token is also set as its cookie) or `cookie` (both tokens in HttpOnly
 * cookies and neither in the body, for a browser page).
 */
type TokenDelivery = 'body' | 'cookie';

function sendSession(res: Response, session: Session | undefined, delivery: TokenDelivery, cookieSecure: boolean): void {
  const { accessToken, expiresInSeconds, refreshToken, refreshExpiresInSeconds, user } = present(session, 'session');
  const access = accessTokenCookie(accessToken, expiresInSeconds, cookieSecure);
  const userJson: UserJson = toUserJson(present(user, 'user'));
  if (delivery === 'cookie') {
    res.setHeader('set-cookie', [access, refreshTokenCookie(refreshToken, refreshExpiresInSeconds, cookieSecure)]);
    res.json({ token_delivery: 'cookie', expires_in: expiresInSeconds, user: userJson } satisfies CookieSessionResponse);
    return;
  }
  res.setHeader('set-cookie', access);
  res.json({
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: expiresInSeconds,
    refresh_token: refreshToken,
    user: userJson,
  } satisfies TokenResponse);
}

function asksForCookies(req: Request): boolean {
  return req.headers[TOKEN_DELIVERY_HEADER] === 'cookie';
}

/**
 * The refresh token of a refresh grant: from the body, or else from the
 * refresh cookie (a browser sends no body). With neither, the body's
 * absence is the error.
 */
function presentedRefreshToken(req: Request): { token: string; from: TokenDelivery } {
  const cookie = refreshTokenFromCookie(req);
  if (req.body === undefined && cookie !== undefined) return { token: cookie, from: 'cookie' };
  return { token: parseInput(refreshGrantSchema, req.body, 'body').refresh_token, from: 'body' };
}

/** Identity provider API (docs/api.md): login, refresh, logout, the signed-in user. */
export function registerIdentityRoutes(app: Express, { auth, settings }: EdgeDeps): void {
  app.post('/api/auth/v1/token', async (req, res) => {
    const { grant_type: grantType } = parseInput(tokenQuerySchema, req.query, 'query');
    const from = sourceAddress(req);
    if (grantType === 'password') {
      const grant = parseInput(passwordGrantSchema, req.body, 'body');
      const { session } = await auth.login({ ...grant, sourceAddress: from }, { deadlineMs: PASSWORD_GRANT_DEADLINE_MS });
      sendSession(res, session, asksForCookies(req) ? 'cookie' : 'body', settings.cookieSecure);
      return;
    }
    const presented = presentedRefreshToken(req);
    const { session } = await auth.refreshSession({ refreshToken: presented.token, sourceAddress: from });
    // A token that came in a cookie goes back in one: the page never sees it.
    sendSession(res, session, presented.from === 'cookie' || asksForCookies(req) ? 'cookie' : 'body', settings.cookieSecure);
  });

  app.post('/api/auth/v1/logout', async (req, res) => {
    const { refresh_token: fromBody } = parseInput(logoutBodySchema, req.body ?? {}, 'body');
    const refreshToken = fromBody ?? refreshTokenFromCookie(req);
    if (refreshToken !== undefined) await auth.logout({ refreshToken });
    res.setHeader('set-cookie', [clearedAccessTokenCookie(settings.cookieSecure), clearedRefreshTokenCookie(settings.cookieSecure)]);
    res.status(204).end();
  });

  app.get('/api/auth/v1/user', requireSession(settings.accessTokenSecret), async (_req, res) => {
    const { user } = await auth.getUser({ userId: sessionOf(res).userId });
    res.json(toUserJson(present(user, 'user')) satisfies UserJson);
  });
}

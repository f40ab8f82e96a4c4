import type { Express, Request, Response } from 'express';
import { z } from 'zod';
import type { Session } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { present, toUserJson } from '../mappers';
import { accessTokenCookie, clearedAccessTokenCookie } from './cookie';
import { requireSession } from './session';

const GRANT_TYPES = ['password', 'refresh_token'] as const;

const tokenQuery = z.object({ grant_type: z.enum(GRANT_TYPES) });
const passwordGrant = z.strictObject({ email: z.string().trim().min(1), password: z.string().min(1) });
const refreshGrant = z.strictObject({ refresh_token: z.string().min(1) });
const logoutBody = z.strictObject({ refresh_token: z.string().min(1).optional() });

/** The failed-login throttle counts per source; behind a proxy, TRUST_PROXY decides what req.ip is. */
function sourceAddress(req: Request): string {
  return req.ip ?? '';
}

/** GoTrue-style token response, plus the cookie that carries the access token for browsers. */
function sendSession(res: Response, session: Session | undefined, cookieSecure: boolean): void {
  const { accessToken, expiresInSeconds, refreshToken, user } = present(session, 'session');
  res.setHeader('set-cookie', accessTokenCookie(accessToken, expiresInSeconds, cookieSecure));
  res.json({
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: expiresInSeconds,
    refresh_token: refreshToken,
    user: toUserJson(present(user, 'user')),
  });
}

/** Identity provider API (DESIGN 4): login, refresh, logout, the signed-in user. */
export function registerIdentityRoutes(app: Express, { auth, settings }: EdgeDeps): void {
  app.post('/api/auth/v1/token', async (req, res) => {
    const { grant_type: grantType } = parseInput(tokenQuery, req.query, 'query');
    const from = sourceAddress(req);
    const { session } =
      grantType === 'password'
        ? await auth.login({ ...parseInput(passwordGrant, req.body, 'body'), sourceAddress: from })
        : await auth.refreshSession({ refreshToken: parseInput(refreshGrant, req.body, 'body').refresh_token, sourceAddress: from });
    sendSession(res, session, settings.cookieSecure);
  });

  app.post('/api/auth/v1/logout', async (req, res) => {
    const { refresh_token: refreshToken } = parseInput(logoutBody, req.body ?? {}, 'body');
    if (refreshToken !== undefined) await auth.logout({ refreshToken });
    res.setHeader('set-cookie', clearedAccessTokenCookie(settings.cookieSecure));
    res.status(204).end();
  });

  app.get('/api/auth/v1/user', requireSession(settings.accessTokenSecret), async (_req, res) => {
    const { user } = await auth.getUser({ userId: sessionOf(res).userId });
    res.json(toUserJson(present(user, 'user')));
  });
}

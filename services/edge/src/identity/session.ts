import type { RequestHandler } from 'express';
import { verifyAccessToken } from '@gateway/lib/access-token';
import { DomainError } from '@gateway/lib/errors';
import { accessTokenFromCookie } from './cookie';

/** Every API key starts with this marker; the gateway, not the Console, takes them. */
const API_KEY_MARKER = 'svc_';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function presentedToken(authorization: string | undefined, cookieToken: string | undefined): string {
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization)?.[1];
    if (token) return token;
    throw new DomainError('auth', 'Send the access token as "Authorization: Bearer <access token>".', {
      internalReason: 'authorization header is not a bearer token',
    });
  }
  if (cookieToken) return cookieToken;
  throw new DomainError('auth', 'Sign in first: send the service-access-token cookie or "Authorization: Bearer <access token>".', {
    internalReason: 'no session credential',
  });
}

/**
 * Session authentication for the Console and identity routes: the access
 * token from the cookie or a bearer header, verified locally (no RPC).
 * The Authorization header wins when both are sent.
 */
export function requireSession(accessTokenSecret: string): RequestHandler {
  return async (req, res, next) => {
    const token = presentedToken(req.headers.authorization, accessTokenFromCookie(req));
    if (token.startsWith(API_KEY_MARKER)) {
      throw new DomainError('auth', 'API keys are for the gateway: this route needs a signed-in session (sign in and send the access token).', {
        internalReason: 'api key presented to a session route',
      });
    }
    res.locals.session = await verifyAccessToken(token, accessTokenSecret);
    next();
  };
}

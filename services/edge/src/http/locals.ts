import type { Response } from 'express';
import type { AccessTokenClaims } from '@gateway/lib/access-token';
import { DomainError } from '@gateway/lib/errors';

declare global {
  // Express reads per-request state from res.locals; these are the fields edge keeps there.
  namespace Express {
    interface Locals {
      /** Set by the first middleware on every request. */
      requestId?: string;
      /** The signed-in user, set by requireSession. */
      session?: AccessTokenClaims;
      /** Who vouched for a gateway credential: auth just now, or a recent verification (the request log says). */
      verifiedBy?: 'auth' | 'cache';
      /** The error a response carries, for the request log. */
      error?: DomainError;
    }
  }
}

export function requestIdOf(res: { locals: Express.Locals }): string {
  const id = res.locals.requestId;
  if (id === undefined) throw new Error('request id middleware is not installed');
  return id;
}

/** The signed-in user of a route mounted behind requireSession. */
export function sessionOf(res: Response): AccessTokenClaims {
  const session = res.locals.session;
  if (session === undefined) throw new Error('route is not behind requireSession');
  return session;
}

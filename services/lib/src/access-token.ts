import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { DomainError } from './errors';

/**
 * Short-lived access tokens (JWT, HS256). The auth service signs them at
 * login and refresh; edge verifies them locally, so a Console or agent call
 * costs no extra hop. Both read the key from ACCESS_TOKEN_SECRET.
 */
const ISSUER = 'gateway-auth';
const AUDIENCE = 'gateway-console';

export interface AccessTokenClaims {
  userId: string;
  email: string;
}

export async function signAccessToken(claims: AccessTokenClaims, secret: string, ttlSeconds: number): Promise<string> {
  return new SignJWT({ email: claims.email })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(new TextEncoder().encode(secret));
}

/**
 * Verifies signature, issuer, audience and expiry; any failure is a 401 `auth`.
 * A token must carry `exp`, `iat`, `aud` and `iss`: one without an expiry would
 * be a session that never ends.
 */
export async function verifyAccessToken(token: string, secret: string): Promise<AccessTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'iat', 'aud', 'iss'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') throw new Error('claims missing');
    return { userId: payload.sub, email: payload.email };
  } catch (error) {
    const expired = error instanceof joseErrors.JWTExpired;
    return Promise.reject(
      new DomainError('auth', expired ? 'Session expired: refresh it or sign in again.' : 'Sign in first: no valid session.', {
        internalReason: expired ? 'access token expired' : 'access token invalid',
      }),
    );
  }
}

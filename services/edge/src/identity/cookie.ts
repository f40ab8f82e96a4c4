import { parse, serialize, type SerializeOptions } from 'cookie';
import type { Request } from 'express';

/** The session cookie: carries the access token for browsers (docs/api.md). */
export const ACCESS_TOKEN_COOKIE = 'service-access-token';

/**
 * The refresh token, for a browser that asked for cookie delivery. HttpOnly
 * so no script reads it, SameSite=Strict and scoped to the identity routes
 * (sign-in, refresh, sign-out) so it goes nowhere else.
 */
export const REFRESH_TOKEN_COOKIE = 'service-refresh-token';
export const REFRESH_TOKEN_COOKIE_PATH = '/api/auth/v1';

const accessCookieOptions = (secure: boolean): SerializeOptions => ({ httpOnly: true, sameSite: 'lax', path: '/', secure });
const refreshCookieOptions = (secure: boolean): SerializeOptions => ({ httpOnly: true, sameSite: 'strict', path: REFRESH_TOKEN_COOKIE_PATH, secure });
const expired: SerializeOptions = { maxAge: 0, expires: new Date(0) };

/** `Set-Cookie` for a fresh access token; it lives exactly as long as the token. */
export function accessTokenCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return serialize(ACCESS_TOKEN_COOKIE, token, { ...accessCookieOptions(secure), maxAge: maxAgeSeconds });
}

/** `Set-Cookie` for a refresh token; without a lifetime it ends with the browser session. */
export function refreshTokenCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return serialize(REFRESH_TOKEN_COOKIE, token, { ...refreshCookieOptions(secure), ...(maxAgeSeconds > 0 ? { maxAge: maxAgeSeconds } : {}) });
}

/** `Set-Cookie` that makes the browser drop the session cookie. */
export function clearedAccessTokenCookie(secure: boolean): string {
  return serialize(ACCESS_TOKEN_COOKIE, '', { ...accessCookieOptions(secure), ...expired });
}

export function clearedRefreshTokenCookie(secure: boolean): string {
  return serialize(REFRESH_TOKEN_COOKIE, '', { ...refreshCookieOptions(secure), ...expired });
}

function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parse(header)[name] || undefined : undefined;
}

export function accessTokenFromCookie(req: Request): string | undefined {
  return cookieValue(req, ACCESS_TOKEN_COOKIE);
}

export function refreshTokenFromCookie(req: Request): string | undefined {
  return cookieValue(req, REFRESH_TOKEN_COOKIE);
}

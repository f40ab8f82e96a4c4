import { parse, serialize } from 'cookie';
import type { Request } from 'express';

/** The session cookie: carries the access token for browsers (DESIGN 4). */
export const ACCESS_TOKEN_COOKIE = 'service-access-token';

/** `Set-Cookie` for a fresh access token; it lives exactly as long as the token. */
export function accessTokenCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return serialize(ACCESS_TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds, secure });
}

/** `Set-Cookie` that makes the browser drop the session cookie. */
export function clearedAccessTokenCookie(secure: boolean): string {
  return serialize(ACCESS_TOKEN_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    maxAge: 0,
    expires: new Date(0),
    secure,
  });
}

export function accessTokenFromCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  return header ? parse(header)[ACCESS_TOKEN_COOKIE] || undefined : undefined;
}

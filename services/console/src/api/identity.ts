import type { CookieSessionResponse, PasswordGrant, UserJson } from '@gateway/edge/contract';
import { readJson, send } from './http';

/**
 * The identity API as a browser uses it: the tokens go into HttpOnly cookies
 * (the refresh token's scoped to the identity routes), never into the page.
 */
const COOKIE_DELIVERY = { 'x-service-token-delivery': 'cookie' };

export async function signIn(credentials: PasswordGrant): Promise<CookieSessionResponse> {
  return readJson(await send('POST', '/api/auth/v1/token?grant_type=password', { body: credentials, headers: COOKIE_DELIVERY }));
}

/** Rotates the refresh cookie and renews the access cookie; the body says when the new one expires. */
export async function refreshSession(): Promise<CookieSessionResponse> {
  return readJson(await send('POST', '/api/auth/v1/token?grant_type=refresh_token', { headers: COOKIE_DELIVERY }));
}

export async function signOut(): Promise<void> {
  await readJson<void>(await send('POST', '/api/auth/v1/logout'));
}

export async function currentUser(): Promise<UserJson> {
  return readJson(await send('GET', '/api/auth/v1/user'));
}

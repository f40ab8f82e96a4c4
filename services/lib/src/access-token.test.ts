import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import { DomainError } from './errors';
import { signAccessToken, verifyAccessToken } from './access-token';

const secret = randomBytes(32).toString('hex');
const claims = { userId: '7b0c8c2e-3f43-4a4e-9d1f-2f4f0e9e3c11', email: 'owner@example.com' };

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw error;
  return error;
}

type RegisteredClaim = 'iss' | 'aud' | 'iat' | 'exp';

/** A token signed with the right secret but with claims of the test's choosing; `omit` leaves registered claims out. */
function forge(overrides: { issuer?: string; audience?: string; expiresAt?: number; email?: string | number; omit?: RegisteredClaim[] }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const omitted = new Set(overrides.omit);
  const token = new SignJWT({ email: overrides.email ?? claims.email }).setProtectedHeader({ alg: 'HS256' }).setSubject(claims.userId);
  if (!omitted.has('iss')) token.setIssuer(overrides.issuer ?? 'gateway-auth');
  if (!omitted.has('aud')) token.setAudience(overrides.audience ?? 'gateway-console');
  if (!omitted.has('iat')) token.setIssuedAt(now - 3600);
  if (!omitted.has('exp')) token.setExpirationTime(overrides.expiresAt ?? now + 600);
  return token.sign(new TextEncoder().encode(secret));
}

describe('access tokens', () => {
  it('verifies what it signs and gives back the claims', async () => {
    const token = await signAccessToken(claims, secret, 900);
    await expect(verifyAccessToken(token, secret)).resolves.toEqual(claims);
  });

  it('sets the lifetime from the ttl', async () => {
    const token = await signAccessToken(claims, secret, 900);
    const { iat, exp } = decodeJwt(token);
    expect((exp ?? 0) - (iat ?? 0)).toBe(900);
  });

  it('accepts a token forged with the same claims layout, so the test helper matches the real issuer', async () => {
    await expect(verifyAccessToken(await forge({}), secret)).resolves.toEqual(claims);
  });

  it('rejects an expired token as auth, saying the session expired', async () => {
    const error = await rejection(verifyAccessToken(await forge({ expiresAt: Math.floor(Date.now() / 1000) - 60 }), secret));
    expect(error.kind).toBe('auth');
    expect(error.message).toBe('Session expired: refresh it or sign in again.');
    expect(error.internalReason).toBe('access token expired');
  });

  it('rejects a token signed with another secret', async () => {
    const token = await signAccessToken(claims, randomBytes(32).toString('hex'), 900);
    const error = await rejection(verifyAccessToken(token, secret));
    expect([error.kind, error.message, error.internalReason]).toEqual(['auth', 'Sign in first: no valid session.', 'access token invalid']);
  });

  it.each([
    ['another audience', { audience: 'gateway-agent' }],
    ['another issuer', { issuer: 'someone-else' }],
    ['a non-string email', { email: 42 }],
  ])('rejects a token with %s', async (_label, overrides) => {
    const error = await rejection(verifyAccessToken(await forge(overrides), secret));
    expect([error.kind, error.internalReason]).toEqual(['auth', 'access token invalid']);
  });

  it.each<RegisteredClaim>(['exp', 'iat', 'aud', 'iss'])('rejects a token without %s', async (claim) => {
    const error = await rejection(verifyAccessToken(await forge({ omit: [claim] }), secret));
    expect([error.kind, error.internalReason]).toEqual(['auth', 'access token invalid']);
  });

  it('rejects an unsigned token', async () => {
    const valid = await signAccessToken(claims, secret, 900);
    const [, payload] = valid.split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    await expect(rejection(verifyAccessToken(unsigned, secret))).resolves.toMatchObject({ kind: 'auth' });
  });

  it.each(['', 'not-a-jwt', 'a.b.c'])('rejects the malformed token %p', async (token) => {
    await expect(rejection(verifyAccessToken(token, secret))).resolves.toMatchObject({ kind: 'auth', httpStatus: 401 });
  });
});

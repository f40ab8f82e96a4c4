import { DomainError } from '@gateway/lib/errors';
import type { Session } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDeps } from '../deps';
import { dummyPasswordHash, verifyPassword } from './passwords';
import { issueRefreshToken } from './refresh-tokens';
import { openSession } from './session';
import { sourceBucket } from './source-address';
import type { ThrottlePolicy } from './throttle';
import { findLoginAccount } from './users';

/** Wrong email and wrong password get this same answer, so neither reveals which accounts exist. */
export const INVALID_LOGIN_MESSAGE = 'Invalid email or password.';

export interface LoginInput {
  /** Lower-cased. */
  email: string;
  password: string;
  sourceAddress: string;
}

function rateLimited(seconds: number, internalReason: string): DomainError {
  return new DomainError('rate_limit', `Too many failed sign-in attempts. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
    retryAfterSeconds: seconds,
    internalReason,
  });
}

/**
 * Password sign-in. Failed attempts are counted per account and per source
 * address; past either limit the request is refused before the password is
 * looked at. Success forgets the account's failures (not the source's, so a
 * caller cannot reset its address by signing in to an account it owns).
 */
export async function login({ db, throttle, settings }: AuthDeps, { email, password, sourceAddress }: LoginInput): Promise<Session> {
  const { maxFailuresPerAccount, maxFailuresPerSource, windowSeconds } = settings.loginThrottle;
  const account: [string, ThrottlePolicy] = [`login:account:${email}`, { limit: maxFailuresPerAccount, windowSeconds }];
  const source: [string, ThrottlePolicy] = [`login:source:${sourceBucket(sourceAddress)}`, { limit: maxFailuresPerSource, windowSeconds }];

  const [accountWait, sourceWait] = await Promise.all([throttle.retryAfterSeconds(...account), throttle.retryAfterSeconds(...source)]);
  if (accountWait > 0 || sourceWait > 0) {
    throw rateLimited(Math.max(accountWait, sourceWait), accountWait > 0 ? 'login throttled for the account' : 'login throttled for the source');
  }

  const found = await findLoginAccount(db, email);
  // An unknown email spends the same scrypt work as a wrong password.
  const matches = await verifyPassword(password, found?.passwordHash ?? (await dummyPasswordHash()));
  if (!found || !matches) {
    await Promise.all([throttle.recordFailure(...account), throttle.recordFailure(...source)]);
    throw new DomainError('auth', INVALID_LOGIN_MESSAGE, { internalReason: found ? 'wrong password' : 'unknown email' });
  }

  await throttle.clear(account[0]);
  const refreshToken = await issueRefreshToken(db, found.id, settings.refreshTokenTtlDays);
  return openSession({ db, settings }, found.id, refreshToken);
}

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

/** How long a source an account signed in from stays exempt from the account's ceiling. */
export const KNOWN_SOURCE_SECONDS = 30 * 86_400;

/**
 * Password sign-in, throttled without locking anyone out (OWASP's advice
 * against credential stuffing): failures are counted per account and source
 * address together, per source address across accounts, and per account across
 * sources. The account's count is a much higher ceiling against a distributed
 * guess, and it does not apply to a source the account signed in from in the
 * last 30 days, so a stranger's failures never keep the owner out of their own
 * address. Past a limit the request is refused before the password is looked
 * at. Success forgets the account's failures and those of the pair (not the
 * source's, so a caller cannot reset its address by signing in to an account
 * it owns).
 */
export async function login({ db, throttle, settings }: AuthDeps, { email, password, sourceAddress }: LoginInput): Promise<Session> {
  const { maxFailuresPerAccountSource, maxFailuresPerSource, maxFailuresPerAccount, windowSeconds } = settings.loginThrottle;
  const bucket = sourceBucket(sourceAddress);
  const pair: [string, ThrottlePolicy] = [`login:pair:${bucket}:${email}`, { limit: maxFailuresPerAccountSource, windowSeconds }];
  const source: [string, ThrottlePolicy] = [`login:source:${bucket}`, { limit: maxFailuresPerSource, windowSeconds }];
  const account: [string, ThrottlePolicy] = [`login:account:${email}`, { limit: maxFailuresPerAccount, windowSeconds }];
  const knownSource = `login:known:${bucket}:${email}`;

  const [pairWait, sourceWait, accountWait, known] = await Promise.all([
    throttle.retryAfterSeconds(...pair),
    throttle.retryAfterSeconds(...source),
    throttle.retryAfterSeconds(...account),
    throttle.remembers(knownSource),
  ]);
  const waits: Array<[number, string]> = [
    [pairWait, 'login throttled for the account from this source'],
    [sourceWait, 'login throttled for the source'],
    [known ? 0 : accountWait, 'login throttled for the account'],
  ];
  const longest = waits.reduce((worst, wait) => (wait[0] > worst[0] ? wait : worst));
  if (longest[0] > 0) throw rateLimited(...longest);

  const found = await findLoginAccount(db, email);
  // An unknown email spends the same scrypt work as a wrong password.
  const matches = await verifyPassword(password, found?.passwordHash ?? (await dummyPasswordHash()));
  if (!found || !matches) {
    await Promise.all([throttle.recordFailure(...pair), throttle.recordFailure(...source), throttle.recordFailure(...account)]);
    throw new DomainError('auth', INVALID_LOGIN_MESSAGE, { internalReason: found ? 'wrong password' : 'unknown email' });
  }

  await Promise.all([throttle.clear(pair[0]), throttle.clear(account[0]), throttle.remember(knownSource, KNOWN_SOURCE_SECONDS)]);
  const refreshToken = await issueRefreshToken(db, found.id, settings.refreshTokenTtlDays);
  return openSession({ db, settings }, found.id, refreshToken);
}

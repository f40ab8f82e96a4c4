import { signAccessToken } from '@gateway/lib/access-token';
import { DomainError } from '@gateway/lib/errors';
import type { Session } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDeps } from '../deps';
import { loadUser } from './users';

/** The one answer to every refresh that cannot go through, whatever the reason. */
export const SESSION_EXPIRED_MESSAGE = 'Refresh token is invalid or expired. Sign in again.';

const SECONDS_PER_DAY = 86_400;

/** A signed-in session: a fresh access token, the refresh token just issued, and the user. */
export async function openSession({ db, settings }: Pick<AuthDeps, 'db' | 'settings'>, userId: string, refreshToken: string): Promise<Session> {
  const user = await loadUser(db, userId);
  // The user was deleted between the credential check and now: the session dies with it.
  if (!user) throw new DomainError('auth', SESSION_EXPIRED_MESSAGE, { internalReason: 'user deleted' });
  const accessToken = await signAccessToken({ userId, email: user.email }, settings.accessTokenSecret, settings.accessTokenTtlSeconds);
  return {
    accessToken,
    expiresInSeconds: settings.accessTokenTtlSeconds,
    refreshToken,
    refreshExpiresInSeconds: settings.refreshTokenTtlDays * SECONDS_PER_DAY,
    user,
  };
}

import { isIP } from 'node:net';
import { DomainError } from '@gateway/lib/errors';
import type { UnaryHandlers } from '@gateway/lib/grpc';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { z } from 'zod';
import type { AuthDeps } from '../deps';
import { login } from './login';
import { MAX_PASSWORD_LENGTH, dummyPasswordHash } from './passwords';
import { revokeSessionOf, rotateRefreshToken } from './refresh-tokens';
import { SESSION_EXPIRED_MESSAGE, openSession } from './session';
import { loadUser } from './users';
import { parseInput } from '@gateway/lib/validation';
import { emailSchema } from './validation';

const loginRequest = z.object({
  email: emailSchema,
  password: z
    .string()
    .min(1, 'is required')
    .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
  sourceAddress: z.string().refine((address) => isIP(address) !== 0, 'must be the IPv4 or IPv6 address of the caller'),
});
/** RefreshSession and Logout: a malformed token is simply not a live one, only a missing one is bad input. */
const refreshTokenRequest = z.object({ refreshToken: z.string().min(1, 'is required') });
const getUserRequest = z.object({ userId: z.uuid('must be a user id (a UUID)') });

type IdentityHandlers = Pick<UnaryHandlers<typeof AuthServiceService>, 'login' | 'refreshSession' | 'logout' | 'getUser'>;

/** Sign-in, session refresh and sign-out, and the signed-in user. */
export function identityHandlers(deps: AuthDeps): IdentityHandlers {
  const { db, settings, logger } = deps;
  // Made now, so the first login for an unknown email is not slower than the rest.
  void dummyPasswordHash();

  return {
    login: async (request) => ({ session: await login(deps, parseInput(loginRequest, request)) }),

    refreshSession: async (request) => {
      const { refreshToken } = parseInput(refreshTokenRequest, request);
      const outcome = await rotateRefreshToken(db, refreshToken, settings.refreshTokenTtlDays);
      switch (outcome.kind) {
        case 'rotated':
          return { session: await openSession(deps, outcome.userId, outcome.refreshToken) };
        case 'reused':
          // A spent token came back: someone holds a copy. Every token of the family is now dead.
          logger.warn({ userId: outcome.userId, familyId: outcome.familyId }, 'refresh token reused; session family revoked');
          throw new DomainError('auth', SESSION_EXPIRED_MESSAGE, { internalReason: 'refresh token reused' });
        case 'rejected':
          throw new DomainError('auth', SESSION_EXPIRED_MESSAGE, { internalReason: `refresh token ${outcome.reason}` });
      }
    },

    logout: async (request) => {
      await revokeSessionOf(db, parseInput(refreshTokenRequest, request).refreshToken);
      return {};
    },

    getUser: async (request) => {
      const { userId } = parseInput(getUserRequest, request);
      const user = await loadUser(db, userId);
      if (!user) throw new DomainError('not_found', `No user has id ${userId}.`, { field: 'user_id' });
      return { user };
    },
  };
}

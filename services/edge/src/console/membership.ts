import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { AuthServiceService, Membership } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { present } from '../mappers';

/**
 * The signed-in user's membership of an organization, for routes any member
 * may read. A non-member gets the 404 of an organization that does not
 * exist, as on the Console key routes: they learn nothing, not even that it is there.
 */
export async function requireMembership(auth: PromiseClient<typeof AuthServiceService>, userId: string, organizationId: string): Promise<Membership> {
  const { user } = await auth.getUser({ userId });
  const membership = present(user, 'user').memberships.find((candidate) => candidate.organizationId.toLowerCase() === organizationId.toLowerCase());
  if (!membership) throw new DomainError('not_found', 'Organization not found.', { field: 'organization_id' });
  return membership;
}

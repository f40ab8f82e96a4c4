import type { Express } from 'express';
import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { orgParams } from '../console/keys';
import type { EdgeDeps } from '../deps';
import { authenticateGatewayCall, requireScope } from '../gateway/principal';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import { present } from '../mappers';
import { usageReport } from './report';

/** SPEC 2.2: the scope that reads an organization's requests, latency and cost. */
const USAGE_SCOPE = 'usage:read';

/**
 * A non-member gets the 404 of an organization that does not exist, as on
 * the Console key routes: they learn nothing, not even that it is there.
 */
async function requireMembership(auth: PromiseClient<typeof AuthServiceService>, userId: string, organizationId: string): Promise<void> {
  const { user } = await auth.getUser({ userId });
  const member = present(user, 'user').memberships.some((membership) => membership.organizationId.toLowerCase() === organizationId.toLowerCase());
  if (!member) throw new DomainError('not_found', 'Organization not found.', { field: 'organization_id' });
}

/**
 * SPEC 4.3 and DESIGN 4: `GET /api/v1/usage` for an API key with `usage:read`
 * (authenticated exactly as the gateway authenticates), and the Console's
 * `GET /api/v1/orgs/{org}/usage` for any signed-in member. The credential is
 * checked first, then the permission, then the query.
 */
export function registerUsageRoutes(app: Express, { auth, usage, settings, gateway }: EdgeDeps): void {
  app.get('/api/v1/usage', async (req, res) => {
    // The gateway's own path, its cache of recent verifications included.
    const principal = await authenticateGatewayCall({ auth, principals: gateway.principals }, req, res);
    requireScope(principal, USAGE_SCOPE);
    res.json(await usageReport(usage, principal.organizationId, req.query));
  });

  app.get('/api/v1/orgs/:org/usage', requireSession(settings.accessTokenSecret), async (req, res) => {
    const { org } = parseInput(orgParams, req.params, 'path');
    await requireMembership(auth, sessionOf(res).userId, org);
    res.json(await usageReport(usage, org, req.query));
  });
}

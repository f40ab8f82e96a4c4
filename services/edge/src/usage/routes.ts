import type { Express } from 'express';
import { requireMembership } from '../console/membership';
import { orgParamsSchema } from '../contract';
import type { EdgeDeps } from '../deps';
import { authenticateGatewayCall, requireScope } from '../gateway/principal';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import { usageReport } from './report';

/** docs/api.md#authentication: the scope that reads an organization's requests, latency and cost. */
const USAGE_SCOPE = 'usage:read';

/**
 * docs/api.md#usage and docs/api.md: `GET /api/v1/usage` for an API key with `usage:read`
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
    const { org } = parseInput(orgParamsSchema, req.params, 'path');
    await requireMembership(auth, sessionOf(res).userId, org);
    res.json(await usageReport(usage, org, req.query));
  });
}

import type { Express } from 'express';
import { DomainError } from '@gateway/lib/errors';
import { quotaJson } from '../agent/json';
import { orgParamsSchema, type QuotaJson } from '../contract';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import { requireMembership } from './membership';

/**
 * `GET /api/v1/orgs/{org}/quota`: the organization's allowance for the
 * current UTC month, as the ledger's `GetQuota` reads it: the meter of its
 * plan's managed traffic (what its organization-level keys count on), spent,
 * held by calls in flight, remaining, and when it resets. Any member.
 */
export function registerQuotaRoutes(app: Express, { auth, settings, gateway }: EdgeDeps): void {
  app.get('/api/v1/orgs/:org/quota', requireSession(settings.accessTokenSecret), async (req, res) => {
    const { org } = parseInput(orgParamsSchema, req.params, 'path');
    const membership = await requireMembership(auth, sessionOf(res).userId, org);
    const { quota } = await gateway.ledger.getQuota({
      subject: { organizationId: org, agentId: '', planTier: membership.planTier, byok: false, messagesLimit: '0', enforce: true },
    });
    const body = quotaJson(quota);
    if (!body) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'ledger answered GetQuota without a known meter' });
    res.json(body satisfies QuotaJson);
  });
}

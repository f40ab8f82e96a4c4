import { DomainError } from '@gateway/lib/errors';
import { meterOfTraffic, type Catalog, type MeterName } from '@gateway/lib/catalog';

/** Who is metered, as authentication resolved it (validated). */
export interface MeteredSubject {
  organizationId: string;
  agentId: string | null;
  planTier: string;
  byok: boolean;
  /** The agent record's monthly message limit; 0 when it sets none. */
  messagesLimit: bigint;
  /** Only API keys are blocked; legacy credentials are measured (docs/api.md#authentication). */
  enforce: boolean;
}

/** The meter a subject's traffic counts on, and its monthly limit. */
export interface MeterRule {
  meter: MeterName;
  /** Micro-dollars for `spend`; requests or messages for `requests` and `legacy`. */
  limit: bigint;
}

/**
 * The meter of the subject's traffic (lib's meterOfTraffic) and its limit from the plan. The
 * legacy meter takes the agent record's own limit when it has one.
 */
export function meterFor(subject: MeteredSubject, catalog: Catalog): MeterRule {
  const plan = catalog.plans.get(subject.planTier);
  if (!plan) {
    throw new DomainError('internal', 'Internal error. Report it with the request id.', {
      internalReason: `plan "${subject.planTier}" is not in catalog ${catalog.version}`,
    });
  }
  switch (meterOfTraffic(plan.meter, subject.byok)) {
    case 'spend':
      // The catalog's schema requires an allowance for spend plans.
      return { meter: 'spend', limit: plan.monthlyAllowanceMicros ?? 0n };
    case 'legacy':
      return {
        meter: 'legacy',
        limit: subject.messagesLimit > 0n ? subject.messagesLimit : BigInt(plan.legacyMessagesPerMonth ?? 0),
      };
    case 'requests':
      return { meter: 'requests', limit: BigInt(plan.byokRequestsPerMonth) };
  }
}

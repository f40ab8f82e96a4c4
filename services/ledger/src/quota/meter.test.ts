import { parseCatalog, type Catalog } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { meterFor, type MeteredSubject } from './meter';
import { periodFromKey } from './period';
import { quotaSnapshot } from './state';

const plan = (meter: string, extra: Record<string, unknown>) => ({
  description: meter,
  meter,
  byok_requests_per_month: 300,
  ceiling_tier: 'simple',
  tier_models: { simple: 'm' },
  savings_estimate_pct: { simple: 0 },
  ...extra,
});

const catalog: Catalog = parseCatalog({
  version: 'test',
  prices_as_of: '2025-01-01',
  tiers: ['simple'],
  providers: { p: { base_url: 'http://127.0.0.1:1', api_key_env: 'P_KEY' } },
  models: [{ id: 'm', provider: 'p', tier: 'simple', input_usd_per_million_tokens: '1', output_usd_per_million_tokens: '2', context_window: 1000 }],
  plans: {
    dollars: plan('spend', { monthly_allowance_usd: '12.50' }),
    counted: plan('requests', {}),
    older: plan('legacy', { legacy_messages_per_month: 1000 }),
  },
});

const subject = (overrides: Partial<MeteredSubject>): MeteredSubject => ({
  organizationId: '6f1c1b8e-9a43-4c1e-8f0a-0d5b2b9a7e11',
  agentId: null,
  planTier: 'dollars',
  byok: false,
  messagesLimit: 0n,
  enforce: true,
  ...overrides,
});

describe('meterFor', () => {
  it('meters managed traffic of a spend plan in micro-dollars of its allowance', () => {
    expect(meterFor(subject({}), catalog)).toEqual({ meter: 'spend', limit: 12_500_000n });
  });

  it('meters BYOK traffic in requests, whatever the plan meter', () => {
    expect(meterFor(subject({ byok: true }), catalog)).toEqual({ meter: 'requests', limit: 300n });
    expect(meterFor(subject({ byok: true, planTier: 'older', messagesLimit: 5n }), catalog)).toEqual({ meter: 'requests', limit: 300n });
  });

  it('meters a requests plan in requests', () => {
    expect(meterFor(subject({ planTier: 'counted' }), catalog)).toEqual({ meter: 'requests', limit: 300n });
  });

  it("takes the agent record's message limit on the legacy meter, else the plan's", () => {
    expect(meterFor(subject({ planTier: 'older', messagesLimit: 40n }), catalog)).toEqual({ meter: 'legacy', limit: 40n });
    expect(meterFor(subject({ planTier: 'older', messagesLimit: 0n }), catalog)).toEqual({ meter: 'legacy', limit: 1000n });
  });

  it('fails as internal, with the reason kept out of the message, for a plan the catalog lacks', () => {
    const error = (() => {
      try {
        meterFor(subject({ planTier: 'platinum' }), catalog);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'internal' });
    expect((error as DomainError).message).not.toContain('platinum');
    expect((error as DomainError).internalReason).toContain('platinum');
  });
});

describe('quotaSnapshot', () => {
  const period = periodFromKey('2025-05');

  it('reports allowance, spent and remaining for spend, never below zero', () => {
    expect(quotaSnapshot({ meter: 'spend', limit: 1000n }, { used: 300n, credits: 0n }, period)).toEqual({
      meter: 'spend',
      allowanceMicros: 1000n,
      spentMicros: 300n,
      remainingMicros: 700n,
      resetsAt: new Date('2025-06-01T00:00:00Z'),
    });
    expect(quotaSnapshot({ meter: 'spend', limit: 1000n }, { used: 1200n, credits: 0n }, period)).toMatchObject({ remainingMicros: 0n });
  });

  it('counts credits in remaining for requests and legacy', () => {
    expect(quotaSnapshot({ meter: 'requests', limit: 10n }, { used: 4n, credits: 5n }, period)).toMatchObject({
      limit: 10n,
      used: 4n,
      remaining: 11n,
      credits: 5n,
    });
    // Past the limit, the consumed credits are already gone from `credits`.
    expect(quotaSnapshot({ meter: 'legacy', limit: 10n }, { used: 12n, credits: 3n }, period)).toMatchObject({ remaining: 3n });
    expect(quotaSnapshot({ meter: 'legacy', limit: 10n }, { used: 15n, credits: 0n }, period)).toMatchObject({ remaining: 0n });
  });
});

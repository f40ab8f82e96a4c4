import { CatalogError, loadCatalog, parseCatalog, type Catalog, type CatalogFile } from '../catalog';
import { DomainError } from '../errors';
import fc from 'fast-check';
import { SCORING_EXAMPLES } from './scoring/scoring-examples';
import { SCORED_TIERS } from './scoring';
import { routingPolicyFromCatalog } from './policy';
import { createRouter, type RouteInput } from './router';

const model = (id: string, tier: string, unsupported: string[] = []) => ({
  id,
  provider: 'test',
  tier,
  input_usd_per_million_tokens: '1.00',
  output_usd_per_million_tokens: '2.00',
  context_window: 1000,
  unsupported_params: unsupported,
});

/** A catalog small enough to reason about: one model per tier, and a spare reasoning model. */
const fixture: CatalogFile = {
  version: 'test',
  prices_as_of: '2025-09-01',
  tiers: [...SCORED_TIERS],
  providers: { test: { base_url: 'http://127.0.0.1:1/v1', api_key_env: 'TEST_KEY' } },
  models: [
    model('tiny', 'simple'),
    model('mid', 'standard', ['logit_bias']),
    model('big', 'complex'),
    model('thinker', 'reasoning', ['temperature', 'top_p', 'max_tokens']),
    model('other-thinker', 'reasoning', ['temperature']),
  ],
  plans: {
    low: {
      description: 'up to standard',
      meter: 'spend',
      monthly_allowance_usd: '1.00',
      byok_requests_per_month: 10,
      ceiling_tier: 'standard',
      tier_models: { simple: 'tiny', standard: 'mid' },
      savings_estimate_pct: { simple: 50, standard: 0 },
    },
    top: {
      description: 'every tier',
      meter: 'spend',
      monthly_allowance_usd: '10.00',
      byok_requests_per_month: 10,
      ceiling_tier: 'reasoning',
      tier_models: { simple: 'tiny', standard: 'mid', complex: 'big', reasoning: 'thinker' },
      savings_estimate_pct: { simple: 90, standard: 60, complex: 30, reasoning: 0 },
    },
  },
};

const routerOf = (catalog: Catalog) => createRouter(routingPolicyFromCatalog(catalog));
const router = routerOf(parseCatalog(fixture));

const SIMPLE_PROMPT = [{ role: 'user', content: 'hi' }];
/** Scores in the reasoning tier (length, fence, three reasoning cues, tools, output). */
const HARD_PROMPT = [
  {
    role: 'user',
    content: `Find the root cause, explain why it fails, and plan a fix, step by step:\n\`\`\`ts\n${'const total = items.reduce((sum, item) => sum + item.price, 0);\n'.repeat(4)}\`\`\``,
  },
];

const request = (overrides: Partial<RouteInput>): RouteInput => ({
  requestedModel: 'auto',
  credentialModel: 'auto',
  planTier: 'top',
  messages: SIMPLE_PROMPT,
  toolCount: 0,
  maxOutputTokens: 0,
  parameters: [],
  ...overrides,
});
const hard = { messages: HARD_PROMPT, toolCount: 5, maxOutputTokens: 16_000 };

function failure(input: RouteInput): DomainError {
  try {
    router.route(input);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected the route to fail');
}

describe('auto', () => {
  it('serves the plan model of the scored tier', () => {
    expect(router.route(request({}))).toMatchObject({ model: { id: 'tiny' }, tier: 'simple', routed: true, reason: 'auto' });
    const decision = router.route(request(hard));
    expect(decision).toMatchObject({ model: { id: 'thinker' }, tier: 'reasoning', routed: true, reason: 'auto' });
    expect(decision.complexity).toBeGreaterThanOrEqual(75);
  });

  it('never goes above the plan ceiling, and reports the clamped tier with the real score', () => {
    const decision = router.route(request({ ...hard, planTier: 'low' }));
    expect(decision).toMatchObject({ model: { id: 'mid' }, tier: 'standard', reason: 'auto' });
    expect(decision.complexity).toBe(router.route(request(hard)).complexity);
  });

  it('inherits a bound agent record model as if it were named', () => {
    expect(router.route(request({ credentialModel: 'big' }))).toMatchObject({ model: { id: 'big' }, tier: 'simple', routed: true, reason: 'requested' });
    expect(router.route(request({ credentialModel: 'thinker', planTier: 'low' }))).toMatchObject({ model: { id: 'mid' }, reason: 'plan_ceiling' });
  });

  it('falls back to scoring when the record model is not in the catalog', () => {
    expect(router.route(request({ credentialModel: 'retired-model' }))).toMatchObject({ model: { id: 'tiny' }, reason: 'auto' });
    expect(router.route(request({ credentialModel: '' }))).toMatchObject({ model: { id: 'tiny' }, reason: 'auto' });
  });
});

describe('a named model', () => {
  it('is served as-is at or below the ceiling, not routed', () => {
    expect(router.route(request({ requestedModel: 'big' }))).toMatchObject({ model: { id: 'big' }, routed: false, reason: 'requested' });
    expect(router.route(request({ requestedModel: 'mid', planTier: 'low', ...hard }))).toMatchObject({
      model: { id: 'mid' },
      tier: 'standard',
      routed: false,
      reason: 'requested',
    });
  });

  it('overrides a bound agent record model', () => {
    expect(router.route(request({ requestedModel: 'tiny', credentialModel: 'big' }))).toMatchObject({ model: { id: 'tiny' }, reason: 'requested' });
  });

  it("above the ceiling is served by the ceiling's model", () => {
    expect(router.route(request({ requestedModel: 'thinker', planTier: 'low' }))).toMatchObject({
      model: { id: 'mid' },
      routed: true,
      reason: 'plan_ceiling',
    });
  });

  it('that is unknown is a validation error on model listing the catalog', () => {
    const error = failure(request({ requestedModel: 'gpt-9' }));
    expect(error).toMatchObject({
      kind: 'validation',
      field: 'model',
      message: 'Unknown model "gpt-9". Use "auto" or one of: tiny, mid, big, thinker, other-thinker',
    });
    expect(failure(request({ requestedModel: '' }))).toMatchObject({ kind: 'validation', field: 'model', message: expect.stringMatching(/^model is required/) });
    expect(failure(request({ requestedModel: 'AUTO' }))).toMatchObject({ kind: 'validation', field: 'model' });
  });
});

describe('dropped parameters', () => {
  it("are exactly the request's parameters that the served model rejects, sorted", () => {
    const decision = router.route(
      request({ ...hard, parameters: ['top_p', 'messages', 'temperature', 'model', 'stream', 'temperature', 'tools', 'max_tokens'] }),
    );
    expect(decision.model.id).toBe('thinker');
    expect(decision.droppedParams).toEqual(['max_tokens', 'temperature', 'top_p']);
  });

  it('follow the served model, not the requested one', () => {
    const viaCeiling = router.route(request({ requestedModel: 'thinker', planTier: 'low', parameters: ['temperature', 'logit_bias'] }));
    expect(viaCeiling).toMatchObject({ model: { id: 'mid' }, droppedParams: ['logit_bias'] });
  });

  it('are never anything the request did not send, nor anything the model accepts', () => {
    const names = fc.constantFrom('temperature', 'top_p', 'max_tokens', 'logit_bias', 'stream', 'tools', 'seed', 'n', 'user');
    fc.assert(
      fc.property(fc.array(names), fc.constantFrom('tiny', 'mid', 'big', 'thinker', 'other-thinker'), (parameters, requestedModel) => {
        const { droppedParams, model } = router.route(request({ requestedModel, parameters }));
        for (const dropped of droppedParams) {
          expect(parameters).toContain(dropped);
          expect(model.unsupportedParams.has(dropped)).toBe(true);
        }
        for (const kept of parameters.filter((parameter) => !droppedParams.includes(parameter))) expect(model.unsupportedParams.has(kept)).toBe(false);
        expect([...droppedParams].sort()).toEqual(droppedParams);
        expect(new Set(droppedParams).size).toBe(droppedParams.length);
      }),
    );
  });
});

describe('data errors', () => {
  it('an unknown plan is internal, with the reason kept for the logs only', () => {
    const error = failure(request({ planTier: 'platinum' }));
    expect(error.kind).toBe('internal');
    expect(error.message).not.toContain('platinum');
    expect(error.internalReason).toBe('plan tier "platinum" is not in catalog version test');
  });

  it('a catalog whose tiers are not the scored tiers cannot start a router', () => {
    const renamed: CatalogFile = {
      ...fixture,
      tiers: ['basic', 'standard', 'complex', 'reasoning'],
      models: fixture.models.map((entry) => ({ ...entry, tier: entry.tier === 'simple' ? 'basic' : entry.tier })),
      plans: {},
    };
    expect(() => routerOf(parseCatalog(renamed))).toThrow(CatalogError);
    expect(() => routerOf(parseCatalog(renamed))).toThrow(/catalog tiers: must be simple, standard, complex, reasoning/);
  });
});

describe('the shipped catalog', () => {
  it('can be routed, and every plan serves auto at its ceiling with a catalog model', () => {
    const catalog = loadCatalog();
    const shipped = routerOf(catalog);
    for (const [planTier, plan] of catalog.plans) {
      const decision = shipped.route(request({ planTier, ...hard }));
      expect([planTier, decision.tier]).toEqual([planTier, plan.ceilingTier]);
      expect(decision.model.id).toBe(plan.tierModels.get(plan.ceilingTier));
    }
  });

  it('routes the README example as documented', () => {
    const shipped = routerOf(loadCatalog());
    const agentic = SCORING_EXAMPLES.find((example) => example.name === 'an agentic coding session');
    if (!agentic) throw new Error('the agentic example is gone');
    const base = { ...agentic.input, credentialModel: 'auto', parameters: [] };
    expect(shipped.route({ ...base, requestedModel: 'auto', planTier: 'pro' })).toMatchObject({ model: { id: 'o4-mini' }, tier: 'reasoning', complexity: 86 });
    expect(shipped.route({ ...base, requestedModel: 'auto', planTier: 'starter' })).toMatchObject({ model: { id: 'gpt-4.1' }, tier: 'complex', complexity: 86 });
    expect(shipped.route({ ...base, requestedModel: 'o3', planTier: 'starter' })).toMatchObject({ model: { id: 'gpt-4.1' }, reason: 'plan_ceiling' });
    expect(shipped.route({ ...base, requestedModel: 'o3', planTier: 'pro', parameters: ['temperature', 'max_tokens', 'stream'] })).toMatchObject({
      model: { id: 'o3' },
      droppedParams: ['max_tokens', 'temperature'],
    });
  });
});

import { loadCatalog } from '../catalog';
import { DomainError } from '../errors';
import { outcomeOf, routeRequestSpread } from '../../test/support/route-requests';
import { routingPolicyFromCatalog } from './policy';
import { routingPolicyFromMessage, routingPolicyMessage } from './policy-message';
import { answerRoute } from './route-message';
import { createRouter } from './router';

describe('the routing policy on the wire', () => {
  const shipped = routingPolicyFromCatalog(loadCatalog());

  it('comes back with the same version, and routes every request exactly as the policy it was made from', async () => {
    const received = routingPolicyFromMessage(routingPolicyMessage(shipped));
    expect(received.version).toBe(shipped.version);
    expect(received.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    const [original, copy] = [createRouter(shipped), createRouter(received)];
    const requests = routeRequestSpread();
    const outcomes = { answers: 0, errors: 0 };
    for (const request of requests) {
      const expected = await outcomeOf(() => answerRoute(original, request));
      outcomes['answer' in expected ? 'answers' : 'errors'] += 1;
      await expect(outcomeOf(() => answerRoute(copy, request))).resolves.toEqual(expected);
    }
    expect(outcomes.answers).toBeGreaterThan(50);
    expect(outcomes.errors).toBeGreaterThan(10);
  });

  it('is refused when its content does not hash to the version it claims', () => {
    const message = routingPolicyMessage(shipped);
    const [first] = message.plans;
    if (!first) throw new Error('the shipped catalog has plans');
    first.ceilingTier = 'simple';
    expect(() => routingPolicyFromMessage(message)).toThrow(DomainError);
  });

  it('is refused, naming the field, when a plan ceiling is not one of its tiers', () => {
    const message = routingPolicyMessage(shipped);
    const [first] = message.plans;
    if (!first) throw new Error('the shipped catalog has plans');
    first.ceilingTier = 'ultra';
    expect(() => routingPolicyFromMessage(message)).toThrow(/plans\.0\.ceiling_tier/);
  });

  it('changes version with anything that can route a request differently, and only then', () => {
    const catalog = loadCatalog();
    const withPrices = { ...catalog, pricesAsOf: '2099-01-01' };
    expect(routingPolicyFromCatalog(withPrices).version).toBe(shipped.version);
    const [firstModel] = catalog.models.values();
    if (!firstModel) throw new Error('the shipped catalog has models');
    const models = new Map(catalog.models).set(firstModel.id, { ...firstModel, unsupportedParams: new Set(['seed']) });
    expect(routingPolicyFromCatalog({ ...catalog, models }).version).not.toBe(shipped.version);
  });
});

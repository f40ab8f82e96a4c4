import { samplePrincipal } from '../../../../test/support/principals';
import { PrincipalCache } from './principal-cache';

const ORG_A = '1f0b4c3e-8d2a-4e6b-9c1d-2a3b4c5d6e7f';
const ORG_B = '5b7e0a1c-3d2f-4e6a-8b9c-0d1e2f3a4b5c';


function cacheAt(start = 1_000_000, settings = { ttlMs: 30_000, maxEntries: 100 }) {
  const clock = { now: start };
  const cache = new PrincipalCache(settings, () => clock.now);
  cache.enable();
  return { cache, clock };
}

describe('PrincipalCache', () => {
  it('keys by the SHA-256 of the credential and the agent id, never the credential itself', () => {
    const credential = `svc_test_0a1b2c3d${'e'.repeat(48)}`;
    const key = PrincipalCache.keyOf(credential, '');
    expect(key).toMatch(/^[0-9a-f]{64}:$/);
    expect(key).not.toContain(credential);
    expect(PrincipalCache.keyOf(credential, 'agent')).not.toBe(key);
  });

  it('returns a stored principal until its TTL has passed', () => {
    const { cache, clock } = cacheAt();
    cache.store('k', samplePrincipal(ORG_A), cache.ticket());
    clock.now += 29_999;
    expect(cache.get('k')?.organizationId).toBe(ORG_A);
    clock.now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stops at the credential’s own expiry when that comes before the TTL', () => {
    const { cache, clock } = cacheAt();
    cache.store('k', samplePrincipal(ORG_A, { expiresAt: new Date(clock.now + 5_000) }), cache.ticket());
    clock.now += 4_999;
    expect(cache.get('k')).toBeDefined();
    clock.now += 1;
    expect(cache.get('k')).toBeUndefined();
  });

  it('drops exactly the invalidated organization’s entries', () => {
    const { cache } = cacheAt();
    cache.store('a1', samplePrincipal(ORG_A), cache.ticket());
    cache.store('a2', samplePrincipal(ORG_A), cache.ticket());
    cache.store('b1', samplePrincipal(ORG_B), cache.ticket());
    cache.dropOrganization(ORG_A);
    expect([cache.get('a1'), cache.get('a2')]).toEqual([undefined, undefined]);
    expect(cache.get('b1')?.organizationId).toBe(ORG_B);
  });

  it('refuses a verification that started before an invalidation', () => {
    const { cache } = cacheAt();
    const ticket = cache.ticket(); // the call to auth is in flight...
    cache.dropOrganization(ORG_B); // ...when an invalidation arrives
    cache.store('k', samplePrincipal(ORG_A), ticket);
    expect(cache.get('k')).toBeUndefined();
    cache.store('k', samplePrincipal(ORG_A), cache.ticket());
    expect(cache.get('k')).toBeDefined();
  });

  it('holds nothing until enabled, and forgets everything once disabled', () => {
    const cache = new PrincipalCache({ ttlMs: 30_000, maxEntries: 100 });
    cache.store('k', samplePrincipal(ORG_A), cache.ticket());
    expect(cache.get('k')).toBeUndefined();
    cache.enable();
    const ticket = cache.ticket();
    cache.store('k', samplePrincipal(ORG_A), ticket);
    expect(cache.get('k')).toBeDefined();
    cache.disable();
    expect(cache.get('k')).toBeUndefined();
    cache.store('k', samplePrincipal(ORG_A), cache.ticket());
    expect(cache.get('k')).toBeUndefined();
  });

  it('evicts the oldest entry when full', () => {
    const { cache } = cacheAt(0, { ttlMs: 30_000, maxEntries: 2 });
    cache.store('first', samplePrincipal(ORG_A), cache.ticket());
    cache.store('second', samplePrincipal(ORG_A), cache.ticket());
    cache.store('third', samplePrincipal(ORG_A), cache.ticket());
    expect(cache.size).toBe(2);
    expect(cache.get('first')).toBeUndefined();
    expect(cache.get('third')).toBeDefined();
  });
});

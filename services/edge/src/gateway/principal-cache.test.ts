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

  describe('verifying', () => {
    /** A call to auth that answers when the test says so, counting how often it was asked. */
    function auth() {
      const asked: Array<{ resolve(principal: ReturnType<typeof samplePrincipal>): void; reject(error: Error): void }> = [];
      const ask = () => new Promise<ReturnType<typeof samplePrincipal>>((resolve, reject) => asked.push({ resolve, reject }));
      return { ask, asked };
    }

    it('has the calls for one key share one call to auth, and stores its answer', async () => {
      const { cache } = cacheAt();
      const { ask, asked } = auth();
      const first = cache.verify('k', ask);
      const second = cache.verify('k', ask);
      expect(asked).toHaveLength(1);
      asked[0]?.resolve(samplePrincipal(ORG_A));
      expect((await first).organizationId).toBe(ORG_A);
      expect(await second).toBe(await first);
      expect(cache.get('k')?.organizationId).toBe(ORG_A);
      cache.verify('k', ask).catch(() => undefined);
      expect(asked).toHaveLength(2);
    });

    it('shares no verification that started before an invalidation, and stores none', async () => {
      const { cache } = cacheAt();
      const { ask, asked } = auth();
      const before = cache.verify('k', ask);
      cache.dropOrganization(ORG_B);
      const after = cache.verify('k', ask);
      expect(asked).toHaveLength(2);
      asked[0]?.resolve(samplePrincipal(ORG_A, { scopes: ['old'] }));
      await before;
      expect(cache.get('k')).toBeUndefined();
      asked[1]?.resolve(samplePrincipal(ORG_A, { scopes: ['new'] }));
      expect((await after).scopes).toEqual(['new']);
      expect(cache.get('k')?.scopes).toEqual(['new']);
    });

    it('shares nothing while disabled: invalidations may be missed then', () => {
      const cache = new PrincipalCache({ ttlMs: 30_000, maxEntries: 100 });
      const { ask, asked } = auth();
      void cache.verify('k', ask);
      void cache.verify('k', ask);
      expect(asked).toHaveLength(2);
    });

    it('is due again from half the TTL, once, and the answer starts a new TTL', async () => {
      const { cache, clock } = cacheAt();
      const { ask, asked } = auth();
      cache.store('k', samplePrincipal(ORG_A), cache.ticket());
      clock.now += 14_999;
      expect(cache.dueForRefresh('k')).toBe(false);
      clock.now += 1;
      expect(cache.dueForRefresh('k')).toBe(true);
      const refresh = cache.verify('k', ask);
      expect(cache.dueForRefresh('k')).toBe(false);
      expect(cache.get('k')?.organizationId).toBe(ORG_A);
      asked[0]?.resolve(samplePrincipal(ORG_A));
      await refresh;
      expect(cache.dueForRefresh('k')).toBe(false);
      clock.now += 14_999;
      expect(cache.dueForRefresh('k')).toBe(false);
      clock.now += 1;
      expect(cache.dueForRefresh('k')).toBe(true);
      clock.now += 14_999;
      expect(cache.get('k')).toBeDefined();
    });

    it('drops the entry when auth refuses it, so the next call asks auth and meets the refusal', async () => {
      const { cache, clock } = cacheAt();
      const { ask, asked } = auth();
      cache.store('k', samplePrincipal(ORG_A), cache.ticket());
      clock.now += 25_000;
      const refresh = cache.verify('k', ask);
      asked[0]?.reject(new Error('unauthenticated'));
      await expect(refresh).rejects.toThrow('unauthenticated');
      expect(cache.get('k')).toBeUndefined();
      expect(cache.dueForRefresh('k')).toBe(false);
    });
  });
});

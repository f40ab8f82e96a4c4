import { hash } from 'node:crypto';
import type { Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';

export interface PrincipalCacheSettings {
  /** How long a verification is reused; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
}

interface Entry {
  principal: Principal;
  /** When the entry stops being used: the TTL or the credential's own expiry, whichever comes first. */
  usableUntil: number;
}

/**
 * Verified principals, reused for a short while so that a repeat caller
 * costs no call to auth. It holds nothing unless it is enabled, which the
 * invalidation listener does only while it is subscribed to auth's
 * invalidations (principal-invalidations.ts): a revoke or an edit empties the
 * organization's entries on every replica before it returns. Entries are
 * keyed by the SHA-256 of the credential, never the credential. A rejected
 * credential is never cached.
 *
 * The TTL also keeps last_used_at honest: auth writes it when it verifies,
 * at most once a minute, and a key in steady use is verified again at least
 * once per TTL.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private enabled = false;
  /** Moves on every invalidation: a verification that started before one must not be stored after it. */
  private generation = 0;

  constructor(
    private readonly settings: PrincipalCacheSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key of a credential as presented, with the agent id that came with it (the platform agent secret). */
  static keyOf(credential: string, agentId: string): string {
    // The one-shot hash: every request computes it, and it builds no Hash object to throw away.
    return `${hash('sha256', credential, 'hex')}:${agentId}`;
  }

  get(key: string): Principal | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.usableUntil) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  /** Taken before asking auth, handed back to `store` with its answer. */
  ticket(): number {
    return this.generation;
  }

  store(key: string, principal: Principal, ticket: number): void {
    if (!this.enabled || this.settings.ttlMs <= 0 || ticket !== this.generation) return;
    const expiresAt = principal.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    if (this.entries.size >= this.settings.maxEntries) {
      // The oldest entry goes first: a Map iterates in insertion order.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { principal, usableUntil: Math.min(this.now() + this.settings.ttlMs, expiresAt) });
  }

  dropOrganization(organizationId: string): void {
    this.generation += 1;
    for (const [key, entry] of this.entries) {
      if (entry.principal.organizationId === organizationId) this.entries.delete(key);
    }
  }

  /** Starts caching: the listener is subscribed, so no invalidation can be missed from now on. */
  enable(): void {
    this.enabled = true;
  }

  /** Stops caching and forgets everything: invalidations may be missed from now on. */
  disable(): void {
    this.enabled = false;
    this.generation += 1;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

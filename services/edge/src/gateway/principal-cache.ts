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
  /** From then on, a call served from the entry has auth verify the credential again in the background. */
  refreshAt: number;
}

/** A call to auth in flight for one key, and the generation it started in. */
interface Verification {
  generation: number;
  principal: Promise<Principal>;
}

/**
 * The share of the TTL after which an entry in use is verified again in the
 * background: the answer is back long before the entry lapses, so a
 * credential in steady use never has a call wait on auth. Half, not less: a
 * key that calls this replica only every few seconds (one of many callers,
 * spread over the replicas) lapses only when none of its calls falls in the
 * second half of the TTL, and a refresh is at most one call to auth per key
 * and half TTL.
 */
const REFRESH_AFTER_TTL_SHARE = 0.5;

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
 * once per TTL. That verification happens in the background, from half the
 * TTL on, and calls for one key share one call to auth: when
 * an entry lapsed with every call waiting, the calls of the next few
 * milliseconds each asked auth and waited for it.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly verifying = new Map<string, Verification>();
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
    const now = this.now();
    this.entries.set(key, { principal, usableUntil: Math.min(now + this.settings.ttlMs, expiresAt), refreshAt: now + this.settings.ttlMs * REFRESH_AFTER_TTL_SHARE });
  }

  /** The entry is in the second half of its TTL and no verification of it is in flight. */
  dueForRefresh(key: string): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && this.now() >= entry.refreshAt && this.verificationOf(key) === undefined;
  }

  /**
   * Has auth verify the credential (`ask`) and stores the answer. While the
   * cache is enabled, calls for a key whose verification is in flight share
   * it, unless an invalidation came since it started: a call that arrives
   * after a revoke returned must not get the answer from before it. A
   * failure (a refusal, auth unreachable) is never stored and takes the
   * key's entry with it: the next call asks auth itself, as at a lapse.
   */
  verify(key: string, ask: () => Promise<Principal>): Promise<Principal> {
    if (!this.enabled) return ask();
    const pending = this.verificationOf(key);
    if (pending) return pending.principal;
    const ticket = this.ticket();
    const principal = ask().then(
      (verified) => {
        this.store(key, verified, ticket);
        return verified;
      },
      (error: unknown) => {
        this.entries.delete(key);
        throw error;
      },
    );
    const verification: Verification = { generation: ticket, principal };
    this.verifying.set(key, verification);
    const settled = () => {
      if (this.verifying.get(key) === verification) this.verifying.delete(key);
    };
    principal.then(settled, settled);
    return principal;
  }

  private verificationOf(key: string): Verification | undefined {
    const verification = this.verifying.get(key);
    return verification?.generation === this.generation ? verification : undefined;
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

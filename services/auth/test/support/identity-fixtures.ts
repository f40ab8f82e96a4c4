import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { addMember, createOrganization, createUser } from '../../src/admin/commands';
import type { AuthDatabase } from '../../src/db/schema';
import type { MembershipRole } from '../../src/db/tables/memberships';

/**
 * Polls `probe` until it returns something other than undefined, or fails
 * after `timeoutMs`. For effects that take real time (a throttle window
 * closing), so tests wait for the outcome instead of asserting durations.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A name no other test uses (throttle keys, emails). */
export function unique(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/**
 * A caller address no other test uses, from the benchmarking block
 * 198.18.0.0/15, so the shared Redis throttle never mixes tests.
 */
export function uniqueSourceAddress(): string {
  const [a = 0, b = 0, c = 0] = randomBytes(3);
  return `198.${18 + (a % 2)}.${b}.${c}`;
}

export interface SeededAccount {
  userId: string;
  email: string;
  password: string;
}

/** A user who can sign in, member of the given organizations; created through the admin commands. */
export async function seedAccount(
  db: Kysely<AuthDatabase>,
  memberships: Array<{ organizationId: string; role: MembershipRole }> = [],
): Promise<SeededAccount> {
  const email = `${unique('user')}@example.test`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const user = await createUser(db, { email, password });
  for (const { organizationId, role } of memberships) await addMember(db, { org: organizationId, email, role });
  return { userId: user.id, email, password };
}

export async function seedOrganization(db: Kysely<AuthDatabase>, plan: string): Promise<{ id: string; name: string }> {
  const { id, name } = await createOrganization(db, { name: unique('Org'), plan });
  return { id, name };
}

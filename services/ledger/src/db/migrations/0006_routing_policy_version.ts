import type { Kysely } from 'kysely';

/**
 * Each trace names the routing policy that chose its model (the router's
 * `WatchRoutingPolicy` version, whether the router or edge ran it), so a
 * routing decision can be checked against the policy of its day. Nullable:
 * older rows, and requests refused before they were routed, have none. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('traces').addColumn('routing_policy_version', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('traces').dropColumn('routing_policy_version').execute();
}

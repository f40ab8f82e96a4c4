import type { Kysely } from 'kysely';

/**
 * Each trace names the price list its cost was computed with (pricing's
 * `WatchPriceList` version), so a cost can be checked against the prices of
 * its day. Nullable: older rows and unpriced requests have none. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('traces').addColumn('price_list_version', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('traces').dropColumn('price_list_version').execute();
}

import { sql, type Kysely } from 'kysely';

/**
 * An organization's own monthly allowance on the spend meter, set by an
 * operator in place of its plan's. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('allowances')
    .addColumn('organization_id', 'uuid', (col) => col.primaryKey())
    .addColumn('monthly_allowance_micros', 'bigint', (col) => col.notNull().check(sql`monthly_allowance_micros >= 0`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('allowances').execute();
}

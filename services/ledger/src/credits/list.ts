import type { Kysely } from 'kysely';
import type { LedgerDatabase } from '../db/schema';
import { databaseFailure } from '../db/errors';
import type { CreditRow } from '../db/tables/credits';

/** An organization's purchased credits, newest first, used up and expired ones included. */
export async function listCredits(db: Kysely<LedgerDatabase>, organizationId: string): Promise<CreditRow[]> {
  return db
    .selectFrom('credits')
    .selectAll()
    .where('organization_id', '=', organizationId.toLowerCase())
    .orderBy('purchased_at', 'desc')
    .execute()
    .catch((error: unknown) => {
      throw databaseFailure(error);
    });
}

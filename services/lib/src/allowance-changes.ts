/**
 * The `organization_id` of a WatchLeases push (gateway.ledger.v1) that names
 * no organization: any may have changed unheard (a stream just opened, a
 * subscription interrupted, a catalog's plan limits changed), so its holder
 * gives back every lease and asks anew. The ledger sends it and edge reads
 * it; one value for both sides of the wire.
 */
export const EVERY_ORGANIZATION = '';

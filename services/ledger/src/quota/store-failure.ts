import { DomainError } from '@gateway/lib/errors';

/** A store that fails (Redis down, a timeout) makes the quota unavailable; the edge decides how to degrade. */
export function storeFailure(error: unknown): never {
  if (error instanceof DomainError) throw error;
  throw new DomainError('unavailable', 'The ledger store is unavailable.', { cause: error });
}

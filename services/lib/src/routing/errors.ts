import { DomainError } from '../errors';

/** The caller named a model the catalog does not have; the message lists what it has. */
export function unknownModel(requested: string, catalogIds: readonly string[]): DomainError {
  const allowed = `Use "auto" or one of: ${catalogIds.join(', ')}`;
  const message = requested === '' ? `model is required. ${allowed}` : `Unknown model ${JSON.stringify(requested)}. ${allowed}`;
  return new DomainError('validation', message, { field: 'model' });
}

/** The credential's plan is missing from the catalog: a data error, not the caller's. */
export function unknownPlan(planTier: string, catalogVersion: string): DomainError {
  return new DomainError('internal', "The credential's plan is not configured. Report it with the request id.", {
    internalReason: `plan tier ${JSON.stringify(planTier)} is not in catalog version ${catalogVersion}`,
  });
}

/** The catalog has no model for a tier it must serve: also a data error. */
export function missingTierModel(planName: string, tier: string, catalogVersion: string): DomainError {
  return new DomainError('internal', 'No model is configured for this tier. Report it with the request id.', {
    internalReason: `plan ${planName} of catalog version ${catalogVersion} has no usable model for tier ${tier}`,
  });
}

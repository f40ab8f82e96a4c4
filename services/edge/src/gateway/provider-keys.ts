import { decryptSecret } from '@gateway/lib/cipher';
import { DomainError } from '@gateway/lib/errors';
import { InferenceMode, type Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { GatewayCatalog, GatewaySettings } from './deps';

/**
 * The provider key a call goes out with: the service's own for managed
 * traffic, the caller's (decrypted here, in memory, for this call only) for
 * BYOK. The ciphertext is bound to its agent record (associated data), so a
 * key copied onto another record does not decrypt.
 */
export function providerKeyFor(
  { secretsKey }: Pick<GatewaySettings, 'secretsKey'>,
  { managedProviderKeys }: Pick<GatewayCatalog, 'managedProviderKeys'>,
  principal: Principal,
  provider: string,
): string {
  if (principal.mode === InferenceMode.INFERENCE_MODE_BYOK) {
    try {
      return decryptSecret(principal.providerKeyCiphertext, secretsKey, principal.agentId);
    } catch (cause) {
      throw new DomainError('internal', 'The stored provider key of this agent cannot be read. Set it again with aiApiKey.', {
        cause,
        internalReason: 'byok key does not decrypt',
      });
    }
  }
  const key = managedProviderKeys.get(provider);
  if (key === undefined) {
    throw new DomainError('unavailable', `The gateway has no key configured for provider "${provider}".`, {
      internalReason: `managed key missing for ${provider}`,
    });
  }
  return key;
}

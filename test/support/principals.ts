import { InferenceMode, PrincipalKind, type Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';

/** An organization-level API key's principal, as auth grants it, with what a test changes. */
export function samplePrincipal(organizationId: string, overrides: Partial<Principal> = {}): Principal {
  return {
    kind: PrincipalKind.PRINCIPAL_KIND_API_KEY,
    organizationId,
    apiKeyId: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d',
    agentId: '',
    scopes: ['inference'],
    planTier: 'pro',
    mode: InferenceMode.INFERENCE_MODE_MANAGED,
    model: 'auto',
    enforceQuota: true,
    providerKeyCiphertext: '',
    messagesLimit: '0',
    expiresAt: undefined,
    ...overrides,
  };
}

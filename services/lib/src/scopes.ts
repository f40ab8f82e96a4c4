/**
 * Every scope an API key can carry (docs/api.md#authentication) and what each permits, in one
 * place: auth validates against the names, the Console shows the
 * descriptions. No imports, so the browser bundle can use it as it is.
 * `agents:read` and `agents:write` are vestigial: the routes they guarded are
 * gone, but they stay grantable so existing grants persist. They are never defaults.
 */
export const SCOPES = [
  { name: 'inference', permits: 'Chat completions and the model catalog.' },
  { name: 'usage:read', permits: "Reading the organization's requests, latency and cost." },
  { name: 'agents:read', permits: 'Reading agent state. Vestigial: the routes it guarded are gone; kept so existing grants persist.' },
  { name: 'agents:write', permits: 'Changing agent state. Vestigial, like agents:read.' },
] as const;

export type ScopeName = (typeof SCOPES)[number]['name'];

export const VALID_SCOPES: readonly ScopeName[] = SCOPES.map(({ name }) => name);

/** What a new key carries when the creator names no scopes. */
export const DEFAULT_SCOPES: readonly ScopeName[] = ['inference', 'usage:read'];

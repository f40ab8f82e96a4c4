import { z } from 'zod';

/**
 * Every scope an API key can carry (SPEC 2.2). `agents:read` and
 * `agents:write` are vestigial: the routes they guarded are gone, but they
 * stay grantable so existing grants persist. They are never defaults.
 */
export const VALID_SCOPES = ['inference', 'usage:read', 'agents:read', 'agents:write'] as const;
export type ScopeName = (typeof VALID_SCOPES)[number];

/** What a new key carries when the creator names no scopes. */
export const DEFAULT_SCOPES: readonly ScopeName[] = ['inference', 'usage:read'];

const validList = VALID_SCOPES.join(', ');

function isScopeName(name: string): name is ScopeName {
  return (VALID_SCOPES as readonly string[]).includes(name);
}

/**
 * A scope set as given at create or edit: non-empty, every name known (an
 * unknown one is rejected, never dropped, and the message lists the valid
 * ones), duplicates collapsed, returned in the canonical order above.
 */
export const scopeSetSchema = z.array(z.string()).transform((names, context): ScopeName[] => {
  if (names.length === 0) {
    context.addIssue({ code: 'custom', message: `give at least one scope; valid scopes are ${validList}` });
    return z.NEVER;
  }
  const unknown = [...new Set(names.filter((name) => !isScopeName(name)))];
  if (unknown.length > 0) {
    const listed = unknown.map((name) => JSON.stringify(name)).join(', ');
    context.addIssue({
      code: 'custom',
      message: `unknown scope${unknown.length > 1 ? 's' : ''} ${listed}; valid scopes are ${validList}`,
    });
    return z.NEVER;
  }
  return VALID_SCOPES.filter((scope) => names.includes(scope));
});

import { z } from 'zod';
import { DEFAULT_SCOPES, VALID_SCOPES, type ScopeName } from '@gateway/lib/scopes';

export { DEFAULT_SCOPES, VALID_SCOPES, type ScopeName };

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

import { DEFAULT_SCOPES, VALID_SCOPES, scopeSetSchema } from './scopes';

describe('scope sets', () => {
  it('defaults to inference and usage:read only, never the vestigial agent scopes', () => {
    expect([...DEFAULT_SCOPES]).toEqual(['inference', 'usage:read']);
  });

  it('accepts every valid scope, collapses duplicates and orders them canonically', () => {
    expect(scopeSetSchema.parse(['agents:write', 'inference', 'agents:write', 'usage:read', 'agents:read'])).toEqual([
      ...VALID_SCOPES,
    ]);
    expect(scopeSetSchema.parse(['usage:read', 'usage:read'])).toEqual(['usage:read']);
  });

  it('rejects an unknown scope, naming it and listing the valid ones', () => {
    const result = scopeSetSchema.safeParse(['inference', 'admin', 'Inference']);
    expect(result.success).toBe(false);
    const message = result.error?.issues[0]?.message ?? '';
    expect(message).toContain('"admin"');
    expect(message).toContain('"Inference"');
    expect(message).toContain('valid scopes are inference, usage:read, agents:read, agents:write');
  });

  it('rejects an empty set, listing the valid scopes', () => {
    const result = scopeSetSchema.safeParse([]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('valid scopes are inference, usage:read, agents:read, agents:write');
  });
});

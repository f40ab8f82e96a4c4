import { fieldNestedTooDeep, MAX_JSON_DEPTH } from './json-depth';

/** A body whose `field` holds `levels` nested arrays (the body itself is one more level). */
const bodyWith = (field: string, levels: number) => JSON.parse(`{"model":"auto","${field}":${'['.repeat(levels)}${']'.repeat(levels)}}`) as unknown;

describe('JSON nesting depth', () => {
  it('allows a body nested to the limit', () => {
    expect(fieldNestedTooDeep(bodyWith('metadata', MAX_JSON_DEPTH - 1))).toBeUndefined();
  });

  it('names the field one level past the limit', () => {
    expect(fieldNestedTooDeep(bodyWith('metadata', MAX_JSON_DEPTH))).toBe('metadata');
  });

  it('walks a field nested 10,000 deep without running out of stack', () => {
    expect(fieldNestedTooDeep(bodyWith('response_format', 10_000))).toBe('response_format');
  });

  it.each([undefined, null, 'text', 5, [], {}])('passes %p', (value) => {
    expect(fieldNestedTooDeep(value)).toBeUndefined();
  });
});

import { chatRequestSchema } from './request';
import { exampleValue } from './json-value';
import { chooseToolCalls, toolArguments } from './tools';

const tool = (name: string, parameters?: Record<string, unknown>) => ({ type: 'function' as const, function: { name, ...(parameters ? { parameters } : {}) } });

function request(content: string, extra: Record<string, unknown> = {}) {
  return chatRequestSchema.parse({
    model: 'sim-small',
    messages: [{ role: 'user', content }],
    tools: [tool('lookup'), tool('convert')],
    ...extra,
  });
}

describe('chooseToolCalls', () => {
  it('follows tool_choice', () => {
    expect(chooseToolCalls(request('hi', { tool_choice: 'required' })).map((t) => t.function.name)).toEqual(['lookup']);
    expect(chooseToolCalls(request('hi', { tool_choice: { type: 'function', function: { name: 'convert' } } })).map((t) => t.function.name)).toEqual(['convert']);
    expect(chooseToolCalls(request('use lookup', { tool_choice: 'none' }))).toEqual([]);
  });

  it('under auto, calls named functions, or the first on the word tool, else none', () => {
    expect(chooseToolCalls(request('please convert this')).map((t) => t.function.name)).toEqual(['convert']);
    expect(chooseToolCalls(request('use a tool')).map((t) => t.function.name)).toEqual(['lookup']);
    expect(chooseToolCalls(request('hello'))).toEqual([]);
    expect(chooseToolCalls(request('tooling is fun'))).toEqual([]);
  });
});

describe('exampleValue', () => {
  it('respects types, enums, bounds, formats and nesting', () => {
    const value = exampleValue(
      {
        type: 'object',
        properties: {
          kind: { enum: ['a', 'b'] },
          fixed: { const: 3 },
          count: { type: 'integer', minimum: 10, maximum: 12 },
          ratio: { type: 'number', minimum: 0, maximum: 1 },
          when: { type: 'string', format: 'date' },
          code: { type: 'string', minLength: 20, maxLength: 25 },
          maybe: { type: ['string', 'null'] },
          list: { type: 'array', items: { type: 'object', properties: { ok: { type: 'boolean' } } }, minItems: 2 },
          either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
        },
      },
      'root',
    ) as Record<string, unknown>;
    expect(value.kind).toBe('a');
    expect(value.fixed).toBe(3);
    expect(Number.isInteger(value.count) && (value.count as number) >= 10 && (value.count as number) <= 12).toBe(true);
    expect((value.ratio as number) >= 0 && (value.ratio as number) <= 1).toBe(true);
    expect(value.when).toBe('2025-01-15');
    expect((value.code as string).length).toBeGreaterThanOrEqual(20);
    expect((value.code as string).length).toBeLessThanOrEqual(25);
    expect(typeof value.maybe).toBe('string');
    expect(value.list).toEqual([{ ok: expect.any(Boolean) }, { ok: expect.any(Boolean) }]);
    expect(Number.isInteger(value.either)).toBe(true);
  });

  it('gives {} for a function without parameters', () => {
    expect(toolArguments(tool('ping'))).toBe('{}');
  });
});

import Ajv from 'ajv';
import fc from 'fast-check';
import { exampleValue } from './json-value';

const ajv = new Ajv({ strict: false, validateFormats: false });

function expectValid(schema: Record<string, unknown>, value: unknown): void {
  const validate = ajv.compile(schema);
  if (!validate(value)) throw new Error(`${JSON.stringify(value)} is not valid: ${ajv.errorsText(validate.errors)}`);
}

/** What Python's `client.chat.completions.parse(response_format=Model)` sends for a pydantic model with a nested, optional and recursive field. */
const pydanticSchema = {
  $defs: {
    Address: {
      additionalProperties: false,
      properties: { street: { title: 'Street', type: 'string' }, zip: { anyOf: [{ type: 'string' }, { type: 'null' }], title: 'Zip' } },
      required: ['street', 'zip'],
      title: 'Address',
      type: 'object',
    },
    Person: {
      additionalProperties: false,
      properties: {
        name: { title: 'Name', type: 'string' },
        age: { title: 'Age', type: 'integer' },
        role: { enum: ['admin', 'member'], title: 'Role', type: 'string' },
        address: { $ref: '#/$defs/Address' },
        manager: { anyOf: [{ $ref: '#/$defs/Person' }, { type: 'null' }] },
        tags: { items: { type: 'string' }, title: 'Tags', type: 'array' },
      },
      required: ['name', 'age', 'role', 'address', 'manager', 'tags'],
      title: 'Person',
      type: 'object',
    },
  },
  additionalProperties: false,
  properties: { people: { items: { $ref: '#/$defs/Person' }, title: 'People', type: 'array' }, score: { title: 'Score', type: 'number' } },
  required: ['people', 'score'],
  title: 'Team',
  type: 'object',
};

describe('exampleValue', () => {
  it('answers a pydantic schema with $defs, $ref, enums, nullable and recursive fields with a valid value', () => {
    const value = exampleValue(pydanticSchema, 'Team', 'prompt');
    expectValid(pydanticSchema, value);
    const people = (value as { people: Array<{ manager: unknown; role: string }> }).people;
    expect(people.length).toBeGreaterThan(0);
    // Nullable takes the value while depth lasts: the recursion is exercised, and it ends.
    expect(people[0]?.manager).toEqual(expect.objectContaining({ name: expect.any(String) }));
  });

  it('is deterministic, and varies with the seed', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'number' } }, required: ['a', 'b', 'c'] };
    expect(exampleValue(schema, 'root', 'one')).toEqual(exampleValue(schema, 'root', 'one'));
    const seeds = ['one', 'two', 'three', 'four', 'five'].map((seed) => JSON.stringify(exampleValue(schema, 'root', seed)));
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });

  it('respects bounds: exclusive limits, multipleOf, lengths, item counts', () => {
    const schema = {
      type: 'object',
      properties: {
        price: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
        count: { type: 'integer', minimum: -3, maximum: -1 },
        code: { type: 'string', minLength: 12, maxLength: 14 },
        few: { type: 'array', items: { type: 'boolean' }, minItems: 3, maxItems: 3 },
        none: { type: 'array', items: { type: 'string' }, maxItems: 0 },
        when: { type: 'string', format: 'date-time' },
        either: { type: ['integer', 'null'] },
        fixed: { const: 'x' },
        all: { allOf: [{ type: 'object', properties: { p: { type: 'string' } }, required: ['p'] }, { properties: { q: { type: 'boolean' } }, required: ['q'] }] },
      },
      required: ['price', 'count', 'code', 'few', 'none', 'when', 'either', 'fixed', 'all'],
      additionalProperties: false,
    };
    const value = exampleValue(schema, 'root');
    expectValid(schema, value);
    expect(typeof (value as { either: unknown }).either).toBe('number');
  });

  /** Schemas of the structured-outputs subset, built at random. */
  const leaf = fc.oneof(
    fc.constant({ type: 'string' }),
    fc.record({ type: fc.constant('string'), minLength: fc.nat(5), maxLength: fc.integer({ min: 5, max: 20 }) }),
    fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -50, max: 0 }), maximum: fc.integer({ min: 0, max: 50 }) }),
    fc.record({ type: fc.constant('number'), minimum: fc.integer({ min: -5, max: 0 }), exclusiveMaximum: fc.integer({ min: 1, max: 5 }) }),
    fc.constant({ type: 'boolean' }),
    fc.constant({ type: 'null' }),
    fc.record({ enum: fc.uniqueArray(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 4 }) }),
  );
  const { schema: randomSchema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({ type: fc.constant('array'), items: tie('schema'), minItems: fc.nat(2) }),
      fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('schema'), { maxKeys: 4 }).map((properties) => ({
        type: 'object',
        properties,
        required: Object.keys(properties),
        additionalProperties: false,
      })),
      fc.tuple(tie('schema')).map(([inner]) => ({ anyOf: [inner, { type: 'null' }] })),
    ),
  }));
  /** Definitions live at the root, referenced from anywhere below it. */
  const withDefinitions = fc.tuple(randomSchema, randomSchema).map(([definition, other]) => ({
    $defs: { Inner: definition },
    type: 'object',
    properties: { direct: { $ref: '#/$defs/Inner' }, nullable: { anyOf: [{ $ref: '#/$defs/Inner' }, { type: 'null' }] }, other },
    required: ['direct', 'nullable', 'other'],
    additionalProperties: false,
  }));

  it('gives a valid value for any schema of the subset', () => {
    fc.assert(
      fc.property(fc.oneof(randomSchema, withDefinitions), fc.string(), (schema, seed) => {
        expectValid(schema, exampleValue(schema, 'root', seed));
      }),
      { numRuns: 300 },
    );
  });
});

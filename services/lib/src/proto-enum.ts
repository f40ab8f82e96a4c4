/**
 * A ts-proto enum seen by its names as HTTP clients and the database write
 * them: the value's name without the enum's prefix, lower-case, underscores
 * as hyphens (SERVER_REGION_US_EAST is `us-east`). The zero value
 * (`_UNSPECIFIED`) and ts-proto's UNRECOGNIZED have no name: they mean "not given".
 */
export interface ProtoEnumNames<Value extends number, Name extends string = string> {
  /** Every named value, in the proto's order. */
  readonly names: readonly [Name, ...Name[]];
  valueOf(name: Name): Value;
  /** Undefined for the zero value and for values this code does not know. */
  nameOf(value: Value): Name | undefined;
}

export function protoEnumNames<Value extends number, Name extends string = string>(
  enumObject: Record<string, string | number>,
  prefix: string,
): ProtoEnumNames<Value, Name> {
  const entries = Object.entries(enumObject)
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0 && entry[0].startsWith(prefix))
    .map(([key, value]) => [key.slice(prefix.length).toLowerCase().replace(/_/g, '-') as Name, value as Value] as const);
  const [first, ...rest] = entries.map(([name]) => name);
  if (first === undefined) throw new Error(`enum with prefix ${prefix} has no named values`);
  const byName = new Map<Name, Value>(entries);
  const byValue = new Map<Value, Name>(entries.map(([name, value]) => [value, name]));
  return {
    names: [first, ...rest],
    valueOf: (name) => {
      const value = byName.get(name);
      if (value === undefined) throw new RangeError(`${name} is not a value of the enum with prefix ${prefix}`);
      return value;
    },
    nameOf: (value) => byValue.get(value),
  };
}

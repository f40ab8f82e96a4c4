import { z } from 'zod';
import type { ProtoEnumNames } from '@gateway/lib/proto-enum';

export { agentEnums } from '@gateway/lib/agent-enums';

/** A required enum field of a request: its name, or a 400 listing the names. */
export function enumField<Value extends number, Name extends string>(names: ProtoEnumNames<Value, Name>) {
  return z.number().transform((value, context) => {
    const name = names.nameOf(value as Value);
    if (name === undefined) {
      context.addIssue({ code: 'custom', message: `must be one of ${names.names.join(', ')}` });
      return z.NEVER;
    }
    return name;
  });
}

/** An optional enum field: the zero value means "not given". */
export function optionalEnumField<Value extends number, Name extends string>(names: ProtoEnumNames<Value, Name>) {
  return z.number().transform((value, context) => {
    if (value === 0) return undefined;
    const name = names.nameOf(value as Value);
    if (name === undefined) {
      context.addIssue({ code: 'custom', message: `must be one of ${names.names.join(', ')}` });
      return z.NEVER;
    }
    return name;
  });
}

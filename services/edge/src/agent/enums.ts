import { z } from 'zod';
import type { ProtoEnumNames } from '@gateway/lib/proto-enum';

export { agentEnums } from '@gateway/lib/agent-enums';

/** A body field holding one of the enum's names; parses to the proto value. A wrong one lists the names. */
export function enumBodyField<Value extends number>(names: ProtoEnumNames<Value>) {
  const required = `is required: one of ${names.names.join(', ')}`;
  // A wrong value falls through to edge's own message, which lists the names.
  return z.enum(names.names, { error: (issue) => (issue.input === undefined ? required : undefined) }).transform((name) => names.valueOf(name));
}

/** The name a proto value goes out as; an unknown value is the agent service breaking its contract. */
export function nameOf<Value extends number>(names: ProtoEnumNames<Value>, value: Value): string {
  return names.nameOf(value) ?? '';
}

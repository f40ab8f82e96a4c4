/**
 * Bodies are refused past this nesting depth (the body object itself is level 1).
 * Real requests (JSON schemas of tools and response formats included) stay far
 * below it; a deeper body is a caller's mistake or an attack on every parser
 * downstream, and is answered 400 before anything is forwarded.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The top-level field under which `value` nests deeper than `limit` levels, or
 * undefined when it does not. Walks without recursion, so depth costs no stack.
 */
export function fieldNestedTooDeep(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: Array<{ node: object; depth: number; field: string }> = [];
  for (const [key, child] of Object.entries(value)) {
    if (typeof child === 'object' && child !== null) pending.push({ node: child, depth: 2, field: key });
  }
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > limit) return next.field;
    for (const child of Object.values(next.node)) {
      if (typeof child === 'object' && child !== null) pending.push({ node: child, depth: next.depth + 1, field: next.field });
    }
  }
  return undefined;
}

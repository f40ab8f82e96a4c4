import type { RoutedModel } from './policy';

/**
 * The request's top-level parameters that the served model rejects, per the
 * catalog: sorted, without duplicates. Nothing else is ever dropped.
 */
export function droppedParams(parameters: readonly string[], model: RoutedModel): string[] {
  if (model.unsupportedParams.size === 0 || parameters.length === 0) return [];
  const dropped = new Set<string>();
  for (const parameter of parameters) if (model.unsupportedParams.has(parameter)) dropped.add(parameter);
  return [...dropped].sort();
}

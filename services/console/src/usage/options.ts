import type { UsageGroupBy, UsageRange } from '@gateway/edge/contract';

/**
 * The usage controls' values. The lists are the contract's (docs/api.md#usage); they
 * are repeated here rather than imported so the page does not bundle zod,
 * and the checks below fail the build if the two ever differ.
 */
export const RANGES = [
  { value: '7d', label: '7 days' },
  { value: '14d', label: '14 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
] as const satisfies ReadonlyArray<{ value: UsageRange; label: string }>;

export const GROUPINGS = [
  { value: 'day', label: 'Day' },
  { value: 'model', label: 'Model' },
  { value: 'key', label: 'API key' },
  { value: 'agent', label: 'Agent record' },
] as const satisfies ReadonlyArray<{ value: UsageGroupBy; label: string }>;

type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : never;
export const everyRangeListed: Missing<UsageRange, (typeof RANGES)[number]['value']> = true;
export const everyGroupingListed: Missing<UsageGroupBy, (typeof GROUPINGS)[number]['value']> = true;

/** What the Console shows first: a month, by day (the API's defaults too). */
export const DEFAULT_RANGE: UsageRange = '30d';
export const DEFAULT_GROUPING: UsageGroupBy = 'day';

export function rangeOf(search: URLSearchParams): UsageRange {
  return RANGES.find(({ value }) => value === search.get('range'))?.value ?? DEFAULT_RANGE;
}

export function groupingOf(search: URLSearchParams): UsageGroupBy {
  return GROUPINGS.find(({ value }) => value === search.get('group_by'))?.value ?? DEFAULT_GROUPING;
}

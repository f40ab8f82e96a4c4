import type { UsageGroupJson } from '@gateway/edge/contract';
import { formatCount, formatLatency } from '../format';
import { displayUsd } from '../money';

/** The figures' columns after the group's own, and whether each is a number (right-aligned). */
const COLUMNS: ReadonlyArray<readonly [string, boolean]> = [
  ['Requests', true],
  ['Errors', true],
  ['Failures by class', false],
  ['p50', true],
  ['p95', true],
  ['p99', true],
  ['Cost', true],
  ['Unpriced', true],
];

/** Figures per group (a day, model, key or agent record), one row each, money as the API wrote it. */
export function FiguresTable({ caption, heading, groups, label }: { caption: string; heading: string; groups: UsageGroupJson[]; label: (group: UsageGroupJson) => string }) {
  return (
    <div class="table-wrap">
      <table class="table table-figures">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{heading}</th>
            {COLUMNS.map(([title, numeric]) => (
              <th key={title} scope="col" class={numeric ? 'num' : undefined}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => (
            <tr key={group.key ?? ''} data-group={group.key ?? ''}>
              <th scope="row">{label(group)}</th>
              <td class="num">{formatCount(group.requests)}</td>
              <td class="num">{formatCount(group.errors)}</td>
              <td>
                {Object.entries(group.failures)
                  .map(([errorClass, count]) => `${errorClass} ${formatCount(count)}`)
                  .join(', ') || <span class="muted">–</span>}
              </td>
              <td class="num">{formatLatency(group.latency_ms.p50)}</td>
              <td class="num">{formatLatency(group.latency_ms.p95)}</td>
              <td class="num">{formatLatency(group.latency_ms.p99)}</td>
              <td class="num money">{displayUsd(group.cost_usd)}</td>
              <td class="num">{formatCount(group.unpriced_requests)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import type { UsageFiguresJson } from '@gateway/edge/contract';
import { formatCount, formatLatency } from '../format';
import { displayUsd } from '../money';

/** The window's totals: requests, errors by class, exact latency percentiles, cost and what could not be priced. */
export function Totals({ totals }: { totals: UsageFiguresJson }) {
  const failures = Object.entries(totals.failures).sort(([, a], [, b]) => b - a);
  return (
    <dl class="stats stats-totals" aria-label="Totals">
      <div class="stat">
        <dt>Requests</dt>
        <dd data-figure="requests">{formatCount(totals.requests)}</dd>
      </div>
      <div class="stat">
        <dt>Errors</dt>
        <dd data-figure="errors">{formatCount(totals.errors)}</dd>
        {failures.length > 0 ? (
          <ul class="failures" aria-label="Failures by class">
            {failures.map(([errorClass, count]) => (
              <li key={errorClass}>
                <code>{errorClass}</code> {formatCount(count)}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <div class="stat">
        <dt>Latency p50 / p95 / p99</dt>
        <dd data-figure="latency">
          {formatLatency(totals.latency_ms.p50)} / {formatLatency(totals.latency_ms.p95)} / {formatLatency(totals.latency_ms.p99)}
        </dd>
      </div>
      <div class="stat">
        <dt>Cost</dt>
        <dd data-figure="cost">{displayUsd(totals.cost_usd)}</dd>
      </div>
      <div class="stat">
        <dt>Unpriced requests</dt>
        <dd data-figure="unpriced">{formatCount(totals.unpriced_requests)}</dd>
      </div>
    </dl>
  );
}

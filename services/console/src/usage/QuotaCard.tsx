import type { QuotaJson } from '@gateway/edge/contract';
import { formatCount, formatDate } from '../format';
import { displayUsd, toMicros } from '../money';

const METER_NAMES: Record<QuotaJson['meter'], string> = {
  spend: 'Model spend (USD)',
  requests: 'Requests',
  legacy: 'Messages',
};

/** The organization's allowance this month: what was spent, what calls in flight hold, what is left, and when it resets. */
export function QuotaCard({ quota }: { quota: QuotaJson }) {
  const figures =
    quota.meter === 'spend'
      ? {
          limit: displayUsd(quota.allowance_usd),
          used: displayUsd(quota.spent_usd),
          held: quota.held_usd === undefined ? undefined : displayUsd(quota.held_usd),
          remaining: displayUsd(quota.remaining_usd),
          // Bar positions only; every figure shown is the API's string.
          bar: { max: Number(toMicros(quota.allowance_usd)), value: Number(toMicros(quota.spent_usd)) },
        }
      : {
          limit: formatCount(quota.limit),
          used: formatCount(quota.used),
          held: quota.held === undefined ? undefined : formatCount(quota.held),
          remaining: formatCount(quota.remaining),
          bar: { max: quota.limit, value: quota.used },
        };
  return (
    <section class="panel quota" aria-labelledby="quota-title">
      <div class="panel-title-row">
        <h2 id="quota-title" class="panel-title">
          Monthly allowance
        </h2>
        <span class="muted">
          Meter: {METER_NAMES[quota.meter]}
          {quota.resets_at ? ` · resets ${formatDate(quota.resets_at)} (00:00 UTC)` : ''}
        </span>
      </div>
      <meter class="quota-meter" min={0} max={Math.max(figures.bar.max, 1)} value={figures.bar.value} aria-label={`Used ${figures.used} of ${figures.limit}`} />
      <dl class="stats stats-quota">
        <div class="stat">
          <dt>Allowance</dt>
          <dd>{figures.limit}</dd>
        </div>
        <div class="stat">
          <dt>Spent</dt>
          <dd>{figures.used}</dd>
        </div>
        <div class="stat">
          <dt title="Calls in flight and the slices gateway replicas hold to admit the next calls, given back within seconds when unused">Held for calls</dt>
          <dd>{figures.held ?? '–'}</dd>
        </div>
        <div class="stat">
          <dt>Remaining</dt>
          <dd>{figures.remaining}</dd>
        </div>
        {quota.meter !== 'spend' && quota.credits > 0 ? (
          <div class="stat">
            <dt>Purchased credits</dt>
            <dd>{formatCount(quota.credits)}</dd>
          </div>
        ) : null}
      </dl>
    </section>
  );
}

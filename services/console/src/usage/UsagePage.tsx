import { useMemo } from 'preact/hooks';
import type { MembershipJson, UsageGroupBy, UsageGroupJson, UsageJson, UsageRange } from '@gateway/edge/contract';
import { getQuota, getUsage, listAgents, listKeys } from '../api/console';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDateTime, formatDay } from '../format';
import { agentLabel } from '../keys/labels';
import { useLoad } from '../load';
import { navigate, usageHref } from '../router';
import { FiguresTable } from './FiguresTable';
import { GROUPINGS, RANGES, groupingOf, rangeOf } from './options';
import { QuotaCard } from './QuotaCard';
import { Totals } from './Totals';
import { UsageChart } from './UsageChart';

const GROUP_HEADINGS: Record<UsageGroupBy, string> = { day: 'Day (UTC)', model: 'Model', key: 'API key', agent: 'Agent record' };
/** The group of traffic that has no model, key or agent record (docs/api.md#api-keys: organization-level). */
const NULL_GROUP: Record<UsageGroupBy, string> = {
  day: '–',
  model: 'No model (refused before routing)',
  key: 'No API key (legacy credentials)',
  agent: 'Organization (no agent record)',
};

/** The organization's usage: the controls, totals, a chart per day or a table per model, key or agent record; and its quota. */
export function UsagePage({ membership, search }: { membership: MembershipJson; search: URLSearchParams }) {
  const org = membership.organization_id;
  const range = rangeOf(search);
  const groupBy = groupingOf(search);
  const report = useLoad(() => getUsage(org, range, groupBy), [org, range, groupBy]);
  const quota = useLoad(() => getQuota(org), [org]);
  const choose = (next: { range?: UsageRange; group_by?: UsageGroupBy }) =>
    navigate(usageHref(org, new URLSearchParams({ range: next.range ?? range, group_by: next.group_by ?? groupBy })), { replace: true });

  return (
    <>
      <div class="page-header">
        <div>
          <h1>Usage &amp; quota</h1>
          <p class="page-lede">
            Requests of {membership.organization_name} through the gateway, by UTC day. Costs are exact: the sums the API computed in micro-dollars.
          </p>
        </div>
      </div>
      {quota.error ? <ErrorNotice error={quota.error} title="Could not load the quota" /> : null}
      {quota.data ? <QuotaCard quota={quota.data} /> : null}

      <section class="panel" aria-labelledby="usage-title">
        <div class="panel-title-row">
          <h2 id="usage-title" class="panel-title">
            Usage
          </h2>
          <div class="controls">
            <fieldset class="segmented" aria-label="Range">
              <legend class="visually-hidden">Range</legend>
              {RANGES.map((option) => (
                <label key={option.value} class="segment">
                  <input type="radio" name="range" value={option.value} checked={range === option.value} onChange={() => choose({ range: option.value })} />
                  <span>{option.label}</span>
                </label>
              ))}
            </fieldset>
            <label class="field field-inline">
              <span class="field-label">Group by</span>
              <select name="group_by" value={groupBy} onChange={(event) => choose({ group_by: event.currentTarget.value as UsageGroupBy })}>
                {GROUPINGS.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </div>
        {report.error ? <ErrorNotice error={report.error} title="Could not load the usage report" /> : null}
        {report.loading ? (
          <p class="muted" role="status">
            Loading the report…
          </p>
        ) : null}
        {report.data && report.data.range === range && report.data.group_by === groupBy ? <Report org={org} report={report.data} /> : null}
      </section>
    </>
  );
}

function Report({ org, report }: { org: string; report: UsageJson }) {
  const groupBy = report.group_by as UsageGroupBy;
  return (
    <div class="report" aria-live="polite">
      <p class="muted window">
        {formatDateTime(report.from)} to {formatDateTime(report.to)}
      </p>
      {report.truncated ? (
        <p class="notice notice-warning" role="status">
          This window holds more requests than one report reads, so it covers only the newest ones: every figure is a floor, not an exact total.
        </p>
      ) : null}
      <Totals totals={report.totals} />
      {groupBy === 'day' ? (
        <>
          <figure class="chart-figure" aria-labelledby="chart-caption">
            <figcaption id="chart-caption" class="chart-caption">
              Requests, errors and cost per day
            </figcaption>
            <UsageChart days={report.groups} range={report.range} />
          </figure>
          <details class="disclosure">
            <summary>Figures per day</summary>
            <FiguresTable caption="Figures per day" heading={GROUP_HEADINGS.day} groups={[...report.groups].reverse()} label={(group) => (group.key ? formatDay(`${group.key}T00:00:00Z`) : '–')} />
          </details>
        </>
      ) : (
        <GroupedTable org={org} groupBy={groupBy} groups={report.groups} />
      )}
    </div>
  );
}

/** Models are named by the API; keys and agent records by id, which this table names for people. */
function GroupedTable({ org, groupBy, groups }: { org: string; groupBy: UsageGroupBy; groups: UsageGroupJson[] }) {
  const keys = useLoad(() => (groupBy === 'key' ? listKeys(org) : Promise.resolve(undefined)), [org, groupBy]);
  const agents = useLoad(() => (groupBy === 'agent' ? listAgents(org) : Promise.resolve(undefined)), [org, groupBy]);
  const names = useMemo(() => {
    const named = new Map<string, string>();
    for (const key of [...(keys.data?.active ?? []), ...(keys.data?.revoked ?? [])]) named.set(key.id, `${key.name} (${key.prefix})`);
    for (const agent of agents.data?.agents ?? []) named.set(agent.id, agentLabel(agent));
    return named;
  }, [keys.data, agents.data]);
  if (groups.length === 0) return <p class="empty-line">No requests in this window.</p>;
  return (
    <FiguresTable
      caption={`Figures per ${GROUP_HEADINGS[groupBy].toLowerCase()}`}
      heading={GROUP_HEADINGS[groupBy]}
      groups={groups}
      label={(group) => (group.key === null ? NULL_GROUP[groupBy] : (names.get(group.key) ?? group.key))}
    />
  );
}

/**
 * Where a request's time goes inside the stack, read from the stack's own
 * Prometheus metrics rather than measured from outside: edge's whole
 * request, its provider call and its record's round trip, and the ledger's
 * handling of a record. Two scrapes of every edge replica and ledger around a
 * run give the means over that run.
 */
export interface PhaseMeans {
  /** edge's chat-completions request, first middleware to the response's close. */
  requestMs: number;
  providerMs: number;
  /** The record's round trip as edge sees it: `StreamRecords` calls, client side. */
  recordMs: number;
  /** The ledger's handling of a record: `StreamRecords` calls, server side (its Redis script included). */
  ledgerRecordMs: number;
}

type Phase = keyof PhaseMeans;
/** Each phase's histogram sum (ms) and count, over every process scraped. */
export type PhaseTotals = Record<Phase, { sum: number; count: number }>;

const SERIES: Record<Phase, { metric: string; label: string }> = {
  requestMs: { metric: 'edge_http_duration', label: 'http_route="/api/gateway/v1/chat/completions"' },
  providerMs: { metric: 'edge_provider_duration', label: 'stream="false"' },
  recordMs: { metric: 'rpc_client_duration', label: 'rpc_method="StreamRecords"' },
  ledgerRecordMs: { metric: 'rpc_server_duration', label: 'rpc_method="StreamRecords"' },
};
const PHASES = Object.keys(SERIES) as Phase[];

/** Adds one scrape's histogram sums and counts of every phase to `totals`. */
function addScrape(totals: PhaseTotals, text: string): void {
  for (const line of text.split('\n')) {
    for (const phase of PHASES) {
      const { metric, label } = SERIES[phase];
      const isSum = line.startsWith(`${metric}_sum{`);
      if (!(isSum || line.startsWith(`${metric}_count{`)) || !line.includes(label)) continue;
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (isSum) totals[phase].sum += value;
      else totals[phase].count += value;
    }
  }
}

/** The phases' totals now, over the processes serving metrics at these ports. */
export async function readPhases(metricsPorts: readonly number[]): Promise<PhaseTotals> {
  const totals = Object.fromEntries(PHASES.map((phase) => [phase, { sum: 0, count: 0 }])) as PhaseTotals;
  for (const port of metricsPorts) addScrape(totals, await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  return totals;
}

/** Each phase's mean between two readings; NaN for a phase with no calls in between. */
export function phaseMeans(before: PhaseTotals, after: PhaseTotals): PhaseMeans {
  const mean = (phase: Phase) => {
    const count = after[phase].count - before[phase].count;
    return count > 0 ? (after[phase].sum - before[phase].sum) / count : Number.NaN;
  };
  return { requestMs: mean('requestMs'), providerMs: mean('providerMs'), recordMs: mean('recordMs'), ledgerRecordMs: mean('ledgerRecordMs') };
}

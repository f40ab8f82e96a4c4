import type { ContestantName, Measured } from './contest';
import { printReport, type ReportSettings, type Round } from './compare-report';

/**
 * The report of `npm run bench:compare`: what it counts towards each target.
 * "Added" latency is a contestant's percentile less the direct calls' in the
 * same round; when the direct calls' is the larger (their run stalled), the
 * round gives no figure, and it must count neither for nor against a target.
 */

function measured(contestant: ContestantName, p50: number, p99: number): Measured {
  const summary = { count: 2000, p50, p90: p50, p99, max: p99 };
  return {
    contestant,
    kind: 'json',
    rate: 200,
    load: { sent: 2000, ok: 2000, errors: 0, failures: {}, latency: summary, achievedRate: 200, sendLag: summary },
    firstByte: undefined,
    perRequest: {},
    ownPerRequest: 1,
    cpu: { processes: {}, machineBusyMs: 1, machineTotalMs: 4, machineBusy: 0.25, loadAverage: 0, cores: 2 },
    othersBusy: 0,
  };
}

function round(direct: [number, number], portkey: [number, number], gateway: [number, number]): Round {
  return {
    json: new Map<ContestantName, Measured>([
      ['direct', measured('direct', ...direct)],
      ['portkey', measured('portkey', ...portkey)],
      ['gateway', measured('gateway', ...gateway)],
    ]),
    stream: new Map(),
    ladder: new Map(),
    phases: undefined,
  };
}

const SETTINGS: ReportSettings = {
  callers: 1,
  leadInSeconds: 0,
  rate: 200,
  streamRate: 50,
  warmUpSeconds: { json: 30, stream: 3 },
  holdP99AddedMs: 25,
  topRung: 2000,
  servedModel: 'gpt-4.1-nano',
  edgeReplicas: 2,
  logLevels: {},
  runtime: 'compiled',
  redisPersistence: 'aof',
  withEmbedded: false,
  withFloor: false,
  tracesExported: false,
};

function printed(results: Round[], settings: ReportSettings = SETTINGS): string {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => lines.push(parts.join(' ')));
  const table = jest.spyOn(console, 'table').mockImplementation((rows: unknown) => lines.push(JSON.stringify(rows)));
  try {
    printReport(results, settings);
  } finally {
    log.mockRestore();
    table.mockRestore();
  }
  return lines.join('\n');
}

const targetLine = (report: string, start: string) => report.split('\n').find((line) => line.startsWith(start));

describe("bench:compare's report", () => {
  it("shows what the stack's runtimes and its Redis did in the rung where it failed", () => {
    const busy = (edge: number, ledger: number) => ({
      edge: { busy: edge, gcMsPerRequest: 0.02, longCollections: 1 },
      ledger: { busy: ledger, gcMsPerRequest: 0.01, longCollections: 0 },
    });
    const rung = (rate: number, p99: number) => ({
      run: { ...measured('gateway', 1, p99), rate },
      direct: { ...measured('direct', 0.1, 0.4), rate },
      phases: { requestMs: 1, providerMs: 0.3, recordMs: 0.5, ledgerRecordMs: 0.3, authVerifiedMs: Number.NaN, authVerifiedRequests: 0, authenticateMs: Number.NaN, leaseMs: Number.NaN, ledgerLeaseMs: Number.NaN, leasesPerRequest: 0, runtime: busy(0.41, 0.27), redisStalls: { seconds: 2, longestMs: 31 } },
    });
    const ladderRound = { ...round([0.1, 0.4], [1.1, 9.4], [1.5, 8.4]), ladder: new Map([['gateway' as const, { held: rung(500, 8), failed: rung(600, 40) }]]) };
    const ladderRow = printed([ladderRound])
      .split('\n')
      .find((line) => line.includes('first failed req/s'));
    expect(ladderRow).toContain('"there: collections > 10 ms, edge / ledger":"1 / 0"');
    expect(ladderRow).toContain('"there: loops busy %, edge / ledger":"41 / 27"');
    expect(ladderRow).toContain('"there: Redis, seconds with an fsync > 5 ms, longest":"2, 31 ms"');
  });

  it('counts every round whose direct calls were faster than each contestant', () => {
    const report = printed([round([0.1, 0.4], [1.1, 9.4], [1.5, 8.4]), round([0.1, 0.4], [1.1, 9.4], [1.0, 10.4])]);
    expect(targetLine(report, '- added p50 at 200 req/s')).toContain(': 1 of 2 rounds (median');
    expect(targetLine(report, '- added p99 at 200 req/s')).toContain(': 1 of 2 rounds (median');
  });

  it('leaves out a round whose direct calls stalled past the gateway, instead of counting a negative added latency as met', () => {
    // Round 2's direct p99 (35 ms) is above the gateway's (13 ms): "added" would be -22 ms.
    const report = printed([round([0.1, 0.4], [1.1, 9.4], [1.5, 8.4]), round([0.1, 35], [1.1, 40], [1.5, 13])]);
    expect(targetLine(report, '- added p99 at 200 req/s')).toContain(": 1 of 1 rounds (and 1 that could not give the figure) (median 8.00 ms against 5.00 (5.00–9.00) ms)");
    expect(targetLine(report, '- added p50 at 200 req/s')).toContain(': 0 of 2 rounds');
    expect(report).not.toMatch(/"added p99":"-\d/);
  });

  it("reads the trace receiver's CPU on a row of its own, not as a process of the stack", () => {
    const exported = round([0.1, 0.4], [1.1, 9.4], [1.5, 8.4]);
    const gateway = exported.json.get('gateway') as Measured;
    exported.json.set('gateway', { ...gateway, perRequest: { 'edge#1': 0.5, ledger: 0.3, upstream: 0.1, generator: 0.4, 'trace receiver': 0.2 } });
    const rows = printed([exported], { ...SETTINGS, tracesExported: true }).split('\n');
    expect(rows).toContain("| the trace receiver (the collector's stand-in), in the stack's runs | 0.20 |");
    expect(rows.filter((row) => row.startsWith('| trace receiver'))).toEqual([]);
    expect(rows.some((row) => row.includes('every trace recorded and exported over OTLP/HTTP'))).toBe(true);
  });
});

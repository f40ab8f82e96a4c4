import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { capturedLogger } from '../../../lib/test/support/captured-logger';
import { recordCall } from './backends';
import type { TraceRecord } from './trace-record';

/** A ledger client whose record call fails as given; nothing else is called. */
function failingLedger(error: DomainError): PromiseClient<typeof LedgerServiceService> {
  return { streamRecords: () => Promise.reject(error) } as unknown as PromiseClient<typeof LedgerServiceService>;
}

const record = {} as TraceRecord;
const TIMING = { commitWithinMs: 250, answerGraceMs: 2000 };

describe('a best-effort hop that fails', () => {
  it('logs nothing per call when the backend is unavailable (the client reports the outage once)', async () => {
    const { logger, lines } = capturedLogger();
    const outcome = await recordCall(failingLedger(new DomainError('unavailable', 'The ledger service is unavailable.')), logger, record, TIMING, undefined);
    expect(outcome).toEqual({ metered: false, quota: undefined });
    expect(lines()).toEqual([]);
  });

  it('logs a timeout as one short line, without a stack trace', async () => {
    const { logger, lines } = capturedLogger();
    await recordCall(failingLedger(new DomainError('timeout', 'The ledger service did not answer in time.')), logger, record, TIMING, undefined);
    expect(lines()).toEqual([expect.objectContaining({ level: 'warn', reason: 'The ledger service did not answer in time.', msg: 'ledger record failed: response is unmetered' })]);
    expect(lines()[0]).not.toHaveProperty('err');
  });

  it('logs anything else whole, stack included', async () => {
    const { logger, lines } = capturedLogger();
    await recordCall(failingLedger(new DomainError('internal', 'Internal error.')), logger, record, TIMING, undefined);
    expect(lines()).toEqual([expect.objectContaining({ err: expect.objectContaining({ stack: expect.any(String) }) })]);
  });
});

describe('a record', () => {
  it("asks the ledger to commit within the window, waits the grace beyond it, and says what the ledger answered", async () => {
    const calls: { commitWithinMs: number; deadlineMs: number | undefined }[] = [];
    const ledger = {
      streamRecords: (request: { commitWithinMs: number }, settings?: { deadlineMs?: number }) => {
        calls.push({ commitWithinMs: request.commitWithinMs, deadlineMs: settings?.deadlineMs });
        return Promise.resolve({ accepted: calls.length === 1, quota: undefined });
      },
    } as unknown as PromiseClient<typeof LedgerServiceService>;
    const { logger } = capturedLogger();
    await expect(recordCall(ledger, logger, record, TIMING, undefined)).resolves.toEqual({ metered: true, quota: undefined });
    await expect(recordCall(ledger, logger, record, TIMING, undefined)).resolves.toEqual({ metered: false, quota: undefined });
    expect(calls[0]).toEqual({ commitWithinMs: 250, deadlineMs: 2250 });
  });

  it("passes the ledger's renewal of the call's lease on, timed from when the record was sent, with the counters it answered, and nothing when there was none", async () => {
    // The counters after this call's Record: what the next call admitted against the lease shows in its headers.
    const settled = { meter: 'spend', limitMicros: '10000000', usedMicros: '1250', heldMicros: '500', remainingMicros: '8250' };
    let answer = { accepted: true, quota: settled, leaseValidForMs: 10_000 };
    const ledger = { streamRecords: () => Promise.resolve(answer) } as unknown as PromiseClient<typeof LedgerServiceService>;
    const renewals: Array<{ sentAtMs: number; validForMs: number; quota: unknown }> = [];
    const lease = { renewed: (sentAtMs: number, validForMs: number, quota: unknown) => void renewals.push({ sentAtMs, validForMs, quota }) };
    const { logger } = capturedLogger();
    const before = Date.now();
    await recordCall(ledger, logger, record, TIMING, lease);
    expect(renewals).toEqual([{ sentAtMs: expect.any(Number), validForMs: 10_000, quota: settled }]);
    expect(renewals[0]?.sentAtMs).toBeGreaterThanOrEqual(before);
    expect(renewals[0]?.sentAtMs).toBeLessThanOrEqual(Date.now());
    answer = { accepted: true, quota: settled, leaseValidForMs: 0 };
    await recordCall(ledger, logger, record, TIMING, lease);
    expect(renewals).toHaveLength(1);
  });
});

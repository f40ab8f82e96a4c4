import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { LedgerServiceService, RecordRequest } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { capturedLogger } from '../../../lib/test/support/captured-logger';
import { recordCall } from './backends';

/** A ledger client whose record call fails as given; nothing else is called. */
function failingLedger(error: DomainError): PromiseClient<typeof LedgerServiceService> {
  return { record: () => Promise.reject(error) } as unknown as PromiseClient<typeof LedgerServiceService>;
}

const record = {} as RecordRequest;

describe('a best-effort hop that fails', () => {
  it('logs nothing per call when the backend is unavailable (the client reports the outage once)', async () => {
    const { logger, lines } = capturedLogger();
    const outcome = await recordCall(failingLedger(new DomainError('unavailable', 'The ledger service is unavailable.')), logger, record, 250);
    expect(outcome).toEqual({ metered: false, quota: undefined });
    expect(lines()).toEqual([]);
  });

  it('logs a timeout as one short line, without a stack trace', async () => {
    const { logger, lines } = capturedLogger();
    await recordCall(failingLedger(new DomainError('timeout', 'The ledger service did not answer in time.')), logger, record, 250);
    expect(lines()).toEqual([expect.objectContaining({ level: 'warn', reason: 'The ledger service did not answer in time.', msg: 'ledger record failed: response is unmetered' })]);
    expect(lines()[0]).not.toHaveProperty('err');
  });

  it('logs anything else whole, stack included', async () => {
    const { logger, lines } = capturedLogger();
    await recordCall(failingLedger(new DomainError('internal', 'Internal error.')), logger, record, 250);
    expect(lines()).toEqual([expect.objectContaining({ err: expect.objectContaining({ stack: expect.any(String) }) })]);
  });
});

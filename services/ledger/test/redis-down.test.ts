import { createServer } from 'node:net';
import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { DomainError } from '@gateway/lib/errors';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import type { ServiceProcess } from '../../../test/support/processes';
import { LEDGER_HEALTH_NAME } from '../src/server';
import { ledgerClient, newRequestId, recordOf, startLedger, subject, uniquePrefix, writeTestCatalog, type LedgerClient, type TestCatalog } from './support/ledger';

type HealthClient = InstanceType<ReturnType<typeof makeGenericClientConstructor>> & {
  check(request: { service: string }, callback: (error: ServiceError | null, response?: { status: string }) => void): void;
};

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The ledger with its Redis unreachable: metering degrades, nothing hangs, health says so. */
describe('ledger with Redis down', () => {
  let database: TestDatabase;
  let catalog: TestCatalog;
  let ledger: ServiceProcess;
  let client: LedgerClient;
  let health: HealthClient;

  beforeAll(async () => {
    database = await createTestDatabase('ledger_redis_down');
    catalog = writeTestCatalog();
    ledger = await startLedger({
      databaseUrl: database.url,
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      prefix: uniquePrefix('down'),
      catalogPath: catalog.path,
    });
    // A deadline well under the edge's patience: every call must answer, not hang.
    client = ledgerClient(ledger.address, 2000);
    const Health = makeGenericClientConstructor(healthService, 'Health');
    health = new Health(ledger.address, credentials.createInsecure()) as HealthClient;
  });

  afterAll(async () => {
    client?.close();
    health?.close();
    await ledger?.stop();
    catalog?.remove();
    await database?.drop();
  });

  const statusOf = (service: string) =>
    new Promise<string>((resolve, reject) =>
      health.check({ service }, (error, response) => (error ? reject(error) : resolve(response?.status ?? 'missing'))),
    );

  it('answers Record with accepted=false instead of an error', async () => {
    await expect(client.record(recordOf(subject()))).resolves.toEqual({ accepted: false, quota: undefined, leaseValidForMs: 0 });
  });

  it('fails CheckQuota and GetQuota as unavailable', async () => {
    const check = await client.checkQuota({ subject: subject(), requestId: newRequestId(), estimatedCostMicros: '10' }).catch((error: unknown) => error);
    expect(check).toBeInstanceOf(DomainError);
    expect(check).toMatchObject({ kind: 'unavailable', message: 'The ledger store is unavailable.' });
    await expect(client.getQuota({ subject: subject() })).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('still validates input first', async () => {
    await expect(client.record(recordOf(subject(), { clientLabel: 'y'.repeat(300) }))).rejects.toMatchObject({ kind: 'validation' });
  });

  it('reports NOT_SERVING', async () => {
    await expect(statusOf('')).resolves.toBe('NOT_SERVING');
    await expect(statusOf(LEDGER_HEALTH_NAME)).resolves.toBe('NOT_SERVING');
  });

  it('logs the outage once, not once per call', async () => {
    await Promise.all(Array.from({ length: 20 }, () => client.record(recordOf(subject()))));
    const warnings = ledger
      .logs()
      .split('\n')
      .filter((line) => line.includes('"msg":"record failed"') && line.includes('"level":"warn"'));
    expect(warnings).toHaveLength(1);
  });

  it('drains and exits cleanly on SIGTERM', async () => {
    await expect(ledger.stop()).resolves.toBe(0);
  });
});

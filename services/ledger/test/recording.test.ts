import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '@gateway/lib/db';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import type { ServiceProcess } from '../../../test/support/processes';
import type { LedgerDatabase } from '../src/db';
import {
  clearRedisPrefix,
  currentPeriodKey,
  eventually,
  ledgerClient,
  ledgerDatabase,
  newRequestId,
  recordOf,
  startLedger,
  subject,
  uniquePrefix,
  writeTestCatalog,
  type LedgerClient,
  type TestCatalog,
} from './support/ledger';

/** Record through a real ledger process: the trace and ledger rows land in Postgres; reservations expire. */
describe('ledger records', () => {
  const prefix = uniquePrefix('records');
  let database: TestDatabase;
  let catalog: TestCatalog;
  let ledger: ServiceProcess;
  let client: LedgerClient;
  let db: Database<LedgerDatabase>;

  beforeAll(async () => {
    database = await createTestDatabase('ledger_records');
    catalog = writeTestCatalog();
    ledger = await startLedger({
      databaseUrl: database.url,
      redisUrl: testRedisUrl(),
      prefix,
      catalogPath: catalog.path,
      env: { RESERVATION_TTL_SECONDS: '1' },
    });
    client = ledgerClient(ledger.address);
    db = ledgerDatabase(database.url);
  });

  afterAll(async () => {
    client?.close();
    await ledger?.stop();
    await db?.destroy();
    await clearRedisPrefix(testRedisUrl(), prefix);
    catalog?.remove();
    await database?.drop();
  });

  const traceOf = (requestId: string) =>
    eventually(() => db.db.selectFrom('traces').selectAll().where('request_id', '=', requestId).executeTakeFirst(), 15_000, `trace ${requestId}`);
  const entryOf = (requestId: string) =>
    db.db
      .selectFrom('ledger_entries')
      .select(['request_id', 'organization_id', 'agent_id', 'api_key_id', 'meter', 'amount_micros', 'requests', 'credits_used', 'occurred_at'])
      .select(sql<string>`period::text`.as('period'))
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();

  it('writes the trace and the ledger entry of a request, every field', async () => {
    const agentId = randomUUID();
    const who = subject({ agentId });
    const requestId = newRequestId();
    const startedAt = new Date(Date.now() - 1500);
    const { reservationId } = await client.checkQuota({ subject: who, requestId, estimatedCostMicros: '50' });
    const request = recordOf(who, {
      requestId,
      reservationId,
      clientLabel: 'x'.repeat(200),
      userAgent: 'openai-node/4.0',
      requestedModel: 'auto',
      servedModel: 'gpt-4.1-nano',
      tier: 'simple',
      complexity: 7,
      latencyMs: 1234,
      inputTokens: '4000',
      outputTokens: '900',
      costMicros: '760',
      stream: true,
      startedAt,
    });
    const response = await client.record(request);
    expect(response.accepted).toBe(true);
    expect(response.quota).toMatchObject({ spentMicros: '760' });

    const trace = await traceOf(requestId);
    expect(trace).toEqual({
      request_id: requestId,
      organization_id: who.organizationId,
      api_key_id: request.apiKeyId,
      agent_id: agentId,
      principal: 'api_key',
      client_label: 'x'.repeat(200),
      user_agent: 'openai-node/4.0',
      requested_model: 'auto',
      served_model: 'gpt-4.1-nano',
      tier: 'simple',
      complexity: 7,
      http_status: 200,
      error_class: null,
      latency_ms: 1234,
      input_tokens: '4000',
      output_tokens: '900',
      priced: true,
      cost_micros: '760',
      price_list_version: request.priceListVersion,
      routing_policy_version: request.routingPolicyVersion,
      stream: true,
      started_at: startedAt,
      recorded_at: expect.any(Date),
    });
    expect(trace.recorded_at.getTime()).toBeGreaterThanOrEqual(startedAt.getTime());
    await expect(entryOf(requestId)).resolves.toEqual({
      request_id: requestId,
      organization_id: who.organizationId,
      agent_id: agentId,
      api_key_id: request.apiKeyId,
      meter: 'spend',
      amount_micros: '760',
      requests: 1,
      credits_used: 0,
      occurred_at: startedAt,
      period: `${currentPeriodKey(startedAt)}-01`,
    });
  });

  it('records an unpriced request with no cost, never a zero one', async () => {
    const who = subject();
    const request = recordOf(who, { servedModel: 'someone-elses-model', priced: false, costMicros: '0' });
    await expect(client.record(request)).resolves.toMatchObject({ accepted: true });
    await expect(traceOf(request.requestId)).resolves.toMatchObject({ priced: false, cost_micros: null });
    await expect(entryOf(request.requestId)).resolves.toMatchObject({ amount_micros: '0', requests: 1 });
  });

  it('records a failed request of a legacy credential, without key or agent', async () => {
    const who = subject({ planTier: 'legacy_basic', enforce: false });
    const request = recordOf(who, {
      apiKeyId: '',
      principal: 'gateway_token',
      clientLabel: '',
      servedModel: '',
      tier: '',
      httpStatus: 502,
      errorClass: 'provider',
      consumed: false,
      costMicros: '0',
      inputTokens: '0',
      outputTokens: '0',
    });
    await client.record(request);
    await expect(traceOf(request.requestId)).resolves.toMatchObject({
      api_key_id: null,
      agent_id: null,
      principal: 'gateway_token',
      client_label: null,
      served_model: null,
      tier: null,
      http_status: 502,
      error_class: 'provider',
      cost_micros: '0',
    });
    await expect(entryOf(request.requestId)).resolves.toMatchObject({ meter: 'legacy', requests: 0, amount_micros: '0' });
  });

  it('writes a record sent twice once', async () => {
    const request = recordOf(subject());
    await client.record(request);
    await client.record(request);
    await traceOf(request.requestId);
    const marker = recordOf(subject());
    await client.record(marker);
    // Records are written in order: once the later one is in, so is any duplicate.
    await traceOf(marker.requestId);
    const { count } = await db.db
      .selectFrom('traces')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('request_id', '=', request.requestId)
      .executeTakeFirstOrThrow();
    expect(count).toBe('1');
  });

  it('frees what an abandoned reservation held once it expires, and still counts a late settlement', async () => {
    const who = subject();
    const abandoned = newRequestId();
    const held = await client.checkQuota({ subject: who, requestId: abandoned, estimatedCostMicros: '1000' });
    expect(held.allowed).toBe(true);
    expect((await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '1' })).allowed).toBe(false);

    const later = await eventually(async () => {
      const decision = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '1' });
      return decision.allowed ? decision : undefined;
    }, 10_000, 'the expired reservation to be released');
    expect(later.quota).toMatchObject({ spentMicros: '0' });

    await client.record(recordOf(who, { requestId: abandoned, reservationId: held.reservationId, costMicros: '900' }));
    // The later call still holds its 1, which is not left either.
    expect((await client.getQuota({ subject: who })).quota).toMatchObject({ spentMicros: '900', heldMicros: '1', remainingMicros: '99' });
  });
});

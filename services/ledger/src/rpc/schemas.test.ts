import { DomainError } from '@gateway/lib/errors';
import { parseInput } from '@gateway/lib/validation';
import type { RecordRequest } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { recordSchema } from './schemas';

const ORGANIZATION = '0F0E0D0C-0B0A-4908-8706-050403020100';
const REQUEST_ID = '0123456789abcdef0123456789abcdef';

const record = (overrides: Partial<RecordRequest> = {}): RecordRequest => ({
  subject: { organizationId: ORGANIZATION, agentId: '', planTier: 'starter', byok: false, messagesLimit: '0', enforce: true },
  requestId: REQUEST_ID,
  reservationId: '',
  leaseId: '',
  apiKeyId: '',
  principal: 'api_key',
  clientLabel: 'label',
  userAgent: '',
  requestedModel: 'auto',
  servedModel: 'm',
  tier: '',
  complexity: 3,
  httpStatus: 200,
  errorClass: '',
  latencyMs: 12,
  inputTokens: '120',
  outputTokens: '30',
  priced: true,
  costMicros: '9223372036854775807',
  priceListVersion: 'v1',
  routingPolicyVersion: '',
  stream: false,
  startedAt: new Date('2026-11-26T10:00:00Z'),
  consumed: true,
  commitWithinMs: 0,
  ...overrides,
});

const refusal = (input: RecordRequest): string => {
  try {
    parseInput(recordSchema, input);
  } catch (error) {
    if (error instanceof DomainError) return error.message;
    throw error;
  }
  throw new Error('the record was accepted');
};

describe('recordSchema', () => {
  it('converts the checked fields: ids in lower case, empty text as none, counts as bigints, the lease split', () => {
    const valid = parseInput(recordSchema, record({ apiKeyId: ORGANIZATION, leaseId: '2026-11:lease:edge-a:spend' }));
    expect(valid.subject).toEqual({
      organizationId: ORGANIZATION.toLowerCase(),
      agentId: null,
      planTier: 'starter',
      byok: false,
      messagesLimit: 0n,
      enforce: true,
    });
    expect(valid.apiKeyId).toBe(ORGANIZATION.toLowerCase());
    expect(valid).toMatchObject({
      userAgent: null,
      tier: null,
      errorClass: null,
      routingPolicyVersion: null,
      clientLabel: 'label',
      priceListVersion: 'v1',
      inputTokens: 120n,
      costMicros: 9_223_372_036_854_775_807n,
      reservationId: null,
      leaseId: { period: '2026-11', holdId: 'lease:edge-a:spend' },
    });
  });

  it('splits a reservation into its period and its hold', () => {
    expect(parseInput(recordSchema, record({ reservationId: `2026-11:${REQUEST_ID}` })).reservationId).toEqual({ period: '2026-11', holdId: REQUEST_ID });
  });

  it.each([
    [{ reservationId: `2026-11:${'f'.repeat(32)}` }, 'reservation_id: belongs to another request_id'],
    [{ reservationId: `2026-11:${REQUEST_ID}`, leaseId: '2026-11:lease:edge-a:spend' }, 'lease_id: must be empty when reservation_id is set'],
    [{ reservationId: 'soon' }, 'reservation_id: must be empty or a reservation_id returned by CheckQuota'],
    [{ leaseId: '2026-11:lease:edge-a:gold' }, 'lease_id: must be empty or a lease_id returned by Lease'],
    [{ costMicros: '9223372036854775808' }, 'cost_micros: must fit in a signed 64-bit integer'],
    [{ inputTokens: '-1' }, 'input_tokens: must be a non-negative integer'],
    [{ apiKeyId: 'key' }, 'api_key_id: must be a UUID or empty'],
    [{ errorClass: 'oops' }, 'error_class: must be empty or one of'],
    [{ tier: 't'.repeat(101) }, 'tier: must be at most 100 characters'],
    [{ requestId: REQUEST_ID.toUpperCase() }, 'request_id: must be a trace id (32 lower-case hex characters)'],
    [{ httpStatus: 600 }, 'http_status: must be an HTTP status (100 to 599)'],
    [{ latencyMs: -1 }, 'latency_ms: must not be negative'],
    [{ complexity: 1.5 }, 'complexity: must be an integer'],
    [{ subject: { ...record().subject!, planTier: '' } }, 'subject.plan_tier: is required'],
  ])('refuses %j, naming the field and what it allows', (overrides, message) => {
    expect(refusal(record(overrides))).toContain(message);
  });

  it('names every field that breaks a rule, not only the first', () => {
    const message = refusal(record({ costMicros: 'lots', userAgent: 'u'.repeat(1025), commitWithinMs: -5 }));
    expect(message).toContain('cost_micros: must be a non-negative integer');
    expect(message).toContain('user_agent: must be at most 1024 characters');
    expect(message).toContain('commit_within_ms: must not be negative');
  });

  it('names a field of the subject by its path', () => {
    const subject = { ...record().subject!, organizationId: 'someone', messagesLimit: 'many' };
    const message = refusal(record({ subject }));
    expect(message).toContain('subject.organization_id: must be a UUID');
    expect(message).toContain('subject.messages_limit: must be a non-negative integer');
  });
});

import './support/catalog';
import { parseUsd } from '@gateway/lib/money';
import type OpenAI from 'openai';
import { expectApiError, expectHeaderSet, failure, usdHeader } from './support/headers';
import { startE2e, type Caller, type E2e } from './support/harness';
import { streamRaw } from './support/http';
import { committedRecords, committedTrace } from './support/ledger';
import { simulatorDirective } from './support/simulator';

/**
 * The money adds up: over a run of mixed calls (auto and named models,
 * streamed and not, tools, several choices, dropped parameters, failures)
 * the x-service-cost-usd a client reads sums to what the ledger holds for
 * the organization in Postgres, request by request, and to the spend the
 * last quota header reports. One trace per request, labelled as docs/api.md#gateway says.
 */
jest.setTimeout(90_000);

let e2e: E2e;
let caller: Caller;
let client: OpenAI;

beforeAll(async () => {
  e2e = await startE2e('e2e_money');
  caller = await e2e.seed({ plan: 'simulated' });
  client = e2e.client(caller.key);
});

afterAll(() => e2e?.close());

/** What one call told its client: its request id, and its cost (undefined when the response says unpriced). */
interface Outcome {
  requestId: string;
  cost: bigint | undefined;
  status: number;
  metered: boolean;
}

const say = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];
const weather: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];
const hard = say('Find the root cause of this bug and explain why, step by step:\n```js\nconst x = [1, 2].map(parseInt);\n```\nThen prove the fix is correct.');

function fromHeaders(headers: Headers, status = 200): Outcome {
  expectHeaderSet(headers);
  const cost = headers.get('x-service-cost-usd');
  return { requestId: headers.get('x-service-request-id') ?? '', cost: cost ? parseUsd(cost) : undefined, status, metered: headers.get('x-service-metered') === 'true' };
}

async function json(body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Outcome> {
  const { response } = await client.chat.completions.create(body).withResponse();
  return fromHeaders(response.headers);
}

/** Streamed through the client: the cost is what the final chunk's x_service says. */
async function streamedByClient(body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Outcome> {
  const { data, response } = await client.chat.completions.create({ ...body, stream: true }).withResponse();
  let outcome: { cost_usd?: string; metered?: boolean } | undefined;
  for await (const chunk of data) outcome = (chunk as { x_service?: typeof outcome }).x_service ?? outcome;
  if (!outcome?.cost_usd) throw new Error('the stream ended without a priced x_service chunk');
  return { requestId: response.headers.get('x-service-request-id') ?? '', cost: parseUsd(outcome.cost_usd), status: 200, metered: outcome.metered === true };
}

/** Streamed and read with trailers: the cost is the x-service-cost-usd trailer. */
async function streamedWithTrailers(body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Outcome> {
  const streamed = await streamRaw(`${e2e.gatewayUrl}/chat/completions`, { ...body, stream: true }, { authorization: `Bearer ${caller.key}` });
  expect(streamed.status).toBe(200);
  return {
    requestId: streamed.headers.get('x-service-request-id') ?? '',
    cost: usdHeader(streamed.trailers, 'x-service-cost-usd'),
    status: 200,
    metered: streamed.trailers.get('x-service-metered') === 'true',
  };
}

async function failed(body: OpenAI.ChatCompletionCreateParamsNonStreaming, status: number, type: string): Promise<Outcome> {
  const { headers } = expectApiError(await failure(client.chat.completions.create(body)), status, type);
  return fromHeaders(headers, status);
}

describe('a run of mixed calls', () => {
  it('costs the client exactly what the ledger records, call by call and in total', async () => {
    const calls: Array<() => Promise<Outcome>> = [];
    for (let round = 0; round < 3; round += 1) {
      calls.push(
        () => json({ model: 'auto', messages: say(`Round ${round}: name a fruit.`) }),
        () => json({ model: 'auto', messages: hard }),
        () => json({ model: 'sim-medium', messages: say(`Round ${round}: describe a cloud.`), n: 2 }),
        () => json({ model: 'sim-large', messages: say(`Round ${round}: a haiku.`), max_tokens: 20 }),
        () => json({ model: 'sim-reasoning', messages: say(`Round ${round}: why is ice slippery?`), temperature: 0.4 }),
        () => json({ model: 'auto', messages: say(`Round ${round}: the weather in Oslo? Use the tool.`), tools: weather }),
        () => streamedByClient({ model: 'auto', messages: say(`Round ${round}: tell a short story.`) }),
        () => streamedWithTrailers({ model: 'sim-large', messages: say(`Round ${round}: list three rivers.`) }),
        () => failed({ model: 'auto', messages: say(`Round ${round}: fail. ${simulatorDirective({ fail: 500 })}`) }, 502, 'provider'),
        () => failed({ model: `no-such-model-${round}`, messages: say('Hello.') }, 400, 'validation'),
      );
    }
    const outcomes: Outcome[] = [];
    for (const call of calls) outcomes.push(await call());
    // The run ends on a JSON success, whose quota header has seen every settlement before it.
    const { response } = await client.chat.completions.create({ model: 'auto', messages: say('Last one.') }).withResponse();
    outcomes.push(fromHeaders(response.headers));

    expect(outcomes.filter((outcome) => !outcome.metered)).toEqual([]);
    const succeeded = outcomes.filter((outcome) => outcome.status === 200);
    const errors = outcomes.filter((outcome) => outcome.status !== 200);
    expect(succeeded).toHaveLength(25);
    for (const outcome of succeeded) expect(outcome.cost).toEqual(expect.any(BigInt));
    // A failed call is unpriced, not free.
    for (const outcome of errors) expect(outcome.cost).toBeUndefined();
    const total = succeeded.reduce((sum, outcome) => sum + (outcome.cost ?? 0n), 0n);
    expect(total).toBeGreaterThan(0n);

    const { traces, entries } = await committedRecords(e2e.ledger.db, caller.organizationId, outcomes.length);
    const charged = new Map(entries.map((entry) => [entry.request_id, BigInt(entry.amount_micros)]));
    const traced = new Map(traces.map((trace) => [trace.request_id, trace]));
    for (const outcome of outcomes) {
      expect({ id: outcome.requestId, charged: charged.get(outcome.requestId) }).toEqual({ id: outcome.requestId, charged: outcome.cost ?? 0n });
      const trace = traced.get(outcome.requestId);
      expect({ id: outcome.requestId, status: trace?.http_status, cost: trace?.cost_micros }).toEqual({
        id: outcome.requestId,
        status: outcome.status,
        cost: outcome.cost === undefined ? null : String(outcome.cost),
      });
    }
    expect(entries.reduce((sum, entry) => sum + BigInt(entry.amount_micros), 0n)).toBe(total);
    expect(usdHeader(response.headers, 'x-service-quota-spent-usd')).toBe(total);
  });
});

describe('the trace record', () => {
  it('keeps X-Service-Client truncated to 200 characters, else the user agent', async () => {
    const label = `nightly-report ${'é'.repeat(150)} ${'x'.repeat(100)}`;
    const labelled = await client.chat.completions.create({ model: 'auto', messages: say('Label me.') }, { headers: { 'X-Service-Client': label } }).withResponse();
    const unlabelled = await client.chat.completions.create({ model: 'auto', messages: say('No label.') }).withResponse();
    const ids = [labelled, unlabelled].map(({ response }) => response.headers.get('x-service-request-id') ?? '');
    const [labelledTrace, unlabelledTrace] = await Promise.all(ids.map((id) => committedTrace(e2e.ledger.db, id)));
    expect(labelledTrace).toMatchObject({ client_label: [...label].slice(0, 200).join(''), principal: 'api_key', api_key_id: caller.keyId });
    expect(unlabelledTrace?.user_agent).toMatch(/^OpenAI\/JS /);
    expect(unlabelledTrace?.client_label).toBe(unlabelledTrace?.user_agent);
  });
});

describe('logs', () => {
  it('hold no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key])).toEqual([]);
  });
});

import './support/catalog';
import type OpenAI from 'openai';
import { routingPolicyFromCatalog } from '@gateway/lib/routing';
import { expectHeaderSet, usdHeader } from './support/headers';
import { startE2e, type Caller, type E2e } from './support/harness';
import { routingPolicyHeld } from './support/routing-policy';
import { committedTrace } from './support/ledger';
import { testCatalog } from './support/prices';
import { keyFingerprint, simulatorStats } from './support/simulator';
import { startUpstreamRecorder, type UpstreamRecorder } from './support/upstream-recorder';

/**
 * Routing as a caller sees it: `auto` within the plan ceiling, named models
 * above it, the parameters the served model would reject dropped and named
 * (and nothing else), and bound versus unbound keys: the agent record's
 * model, mode, plan and provider key against the organization's defaults.
 */
jest.setTimeout(90_000);

let e2e: E2e;
let recorder: UpstreamRecorder;

beforeAll(async () => {
  recorder = await startUpstreamRecorder();
  e2e = await startE2e('e2e_routing', { serviceEnv: { edge: { UPSTREAM_BASE_URL: recorder.baseUrl } } });
  recorder.forwardTo(e2e.stack.simulatorUrl);
  // Every answer below comes from edge routing with the policy it holds, which must answer as Route did.
  await routingPolicyHeld(e2e.stack.services.edge);
});

afterAll(async () => {
  await e2e?.close();
  await recorder?.close();
});

const simple: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Name a colour.' }];

/** Code, reasoning cues, math and tools: a request the router scores into its top tier. */
const hardRequest = {
  model: 'auto',
  messages: [
    {
      role: 'user',
      content: [
        'This function returns the wrong total for large inputs:',
        '```ts',
        'export function total(values: number[]): number {',
        '  return values.reduce((sum, value) => sum + value * value, 0);',
        '}',
        '```',
        'Find the root cause, explain why it fails, and plan a fix step by step.',
        'Then prove that your fixed version computes the sum of squares for every input.',
      ].join('\n'),
    },
  ],
  tools: ['read_file', 'write_file', 'run_tests', 'search', 'diff'].map((name) => ({
    type: 'function' as const,
    function: { name, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  })),
  tool_choice: 'none',
} satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;

function routing(headers: Headers) {
  return {
    model: headers.get('x-service-model'),
    tier: headers.get('x-service-tier'),
    routed: headers.get('x-service-routed'),
    baselineModel: headers.get('x-service-baseline-model'),
    baselineReason: headers.get('x-service-baseline-reason'),
  };
}

describe('the plan ceiling', () => {
  let unlimited: OpenAI;
  let capped: OpenAI;

  beforeAll(async () => {
    unlimited = e2e.client((await e2e.seed({ plan: 'simulated' })).key);
    capped = e2e.client((await e2e.seed({ plan: 'e2e_ceiling_standard' })).key);
  });

  it('lets auto pick the top tier where the plan allows it, and caps it where the plan does not', async () => {
    const top = await unlimited.chat.completions.create(hardRequest).withResponse();
    expect(routing(top.response.headers)).toEqual({
      model: 'sim-reasoning',
      tier: 'reasoning',
      routed: 'true',
      baselineModel: 'sim-reasoning',
      baselineReason: 'plan_ceiling',
    });

    const cappedCall = await capped.chat.completions.create(hardRequest).withResponse();
    expectHeaderSet(cappedCall.response.headers);
    expect(routing(cappedCall.response.headers)).toEqual({
      model: 'sim-medium',
      tier: 'standard',
      routed: 'true',
      baselineModel: 'sim-medium',
      baselineReason: 'plan_ceiling',
    });
    // The score is the request's, whatever the plan: the tier is capped, the complexity is not.
    const complexity = Number(top.response.headers.get('x-service-complexity'));
    expect(complexity).toBeGreaterThanOrEqual(75);
    expect(cappedCall.response.headers.get('x-service-complexity')).toBe(String(complexity));
    expect(cappedCall.data.model).toBe('sim-medium');
  });

  it('serves a named model above the ceiling with the ceiling model, measured against the named one', async () => {
    const { data, response } = await capped.chat.completions.create({ model: 'sim-large', messages: simple }).withResponse();
    expectHeaderSet(response.headers);
    expect(routing(response.headers)).toEqual({
      model: 'sim-medium',
      tier: 'simple',
      routed: 'true',
      baselineModel: 'sim-large',
      baselineReason: 'named',
    });
    expect(data.model).toBe('sim-medium');
    expect(recorder.last().body.model).toBe('sim-medium');
    const saving = usdHeader(response.headers, 'x-service-baseline-usd') - usdHeader(response.headers, 'x-service-cost-usd');
    expect(saving).toBeGreaterThan(0n);
    expect(usdHeader(response.headers, 'x-service-savings-usd')).toBe(saving);
  });

  it('serves a named model within the ceiling as it is, as its own baseline', async () => {
    const { response } = await capped.chat.completions.create({ model: 'sim-small', messages: simple }).withResponse();
    expect(routing(response.headers)).toEqual({
      model: 'sim-small',
      tier: 'simple',
      routed: 'false',
      baselineModel: 'sim-small',
      baselineReason: 'named',
    });
    expect(response.headers.get('x-service-savings-usd')).toBe('0.000000');
    expect(response.headers.get('x-service-baseline-usd')).toBe(response.headers.get('x-service-cost-usd'));
  });
});

it('names on the trace the routing policy that chose the model: the version the router publishes for its catalog', async () => {
  const client = e2e.client((await e2e.seed({ plan: 'simulated' })).key);
  const { response } = await client.chat.completions.create({ model: 'auto', messages: simple }).withResponse();
  const trace = await committedTrace(e2e.ledger.db, response.headers.get('x-service-request-id') ?? '');
  expect(trace.routing_policy_version).toBe(routingPolicyFromCatalog(testCatalog).version);
  expect(trace.routing_policy_version).toMatch(/^sha256:[0-9a-f]{16}$/);
});

describe('dropped parameters', () => {
  let client: OpenAI;

  beforeAll(async () => {
    client = e2e.client((await e2e.seed({ plan: 'simulated' })).key);
  });

  it('drops exactly the parameters the served model rejects, and names them', async () => {
    const request = {
      model: 'sim-reasoning',
      messages: simple,
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 50,
      seed: 11,
      stop: ['zebra'],
      user: 'end-user-7',
      response_format: { type: 'text' },
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;
    // The provider itself refuses them: this is what the gateway spares the caller.
    const direct = await fetch(`${e2e.stack.simulatorUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer direct' },
      body: JSON.stringify(request),
    });
    expect(direct.status).toBe(400);

    const { data, response } = await client.chat.completions.create(request).withResponse();
    expectHeaderSet(response.headers);
    expect(response.headers.get('x-service-dropped-params')).toBe('max_tokens,temperature,top_p');
    expect(data.choices[0]?.message.content).toEqual(expect.stringMatching(/\S/));
    const { temperature: _temperature, top_p: _topP, max_tokens: _maxTokens, ...kept } = request;
    expect(recorder.last().body).toEqual(kept);
  });

  it('sends no dropped-params header when nothing was dropped', async () => {
    const request = { model: 'sim-reasoning', messages: simple, seed: 3, user: 'end-user-7' } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { response } = await client.chat.completions.create(request).withResponse();
    expectHeaderSet(response.headers);
    expect(response.headers.get('x-service-dropped-params')).toBeNull();
    expect(recorder.last().body).toEqual(request);
  });

  it('follows the model that serves, not the one requested', async () => {
    const capped = e2e.client((await e2e.seed({ plan: 'e2e_ceiling_standard' })).key);
    const request = { model: 'sim-reasoning', messages: simple, temperature: 0.3 } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { response } = await capped.chat.completions.create(request).withResponse();
    // sim-reasoning is above this plan's ceiling; sim-medium serves, and it takes a temperature.
    expect(response.headers.get('x-service-model')).toBe('sim-medium');
    expect(response.headers.get('x-service-dropped-params')).toBeNull();
    expect(recorder.last().body).toEqual({ ...request, model: 'sim-medium' });
  });

  it('drops for a streamed request too', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'sim-reasoning', messages: simple, temperature: 0.5, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toEqual(expect.stringMatching(/\S/));
    expect(response.headers.get('x-service-dropped-params')).toBe('temperature');
    expect(recorder.last().body).not.toHaveProperty('temperature');
  });
});

describe('bound and unbound keys', () => {
  const providerKey = `sk-byok-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  let bound: Caller;
  let unbound: OpenAI;

  beforeAll(async () => {
    // The organization is on the simulated plan; its agent record on the capped one, with its own model and provider key.
    bound = await e2e.seed({ plan: 'simulated', agent: { model: 'sim-small', plan: 'e2e_ceiling_standard', providerKey } });
    const organizationKey = await e2e.seed({ plan: 'simulated' });
    unbound = e2e.client(organizationKey.key);
  });

  it("serves a bound key's auto with the agent record's model, plan and mode, on the caller's provider key", async () => {
    const { response } = await e2e.client(bound.key).chat.completions.create(hardRequest).withResponse();
    expectHeaderSet(response.headers);
    expect({ ...routing(response.headers), mode: response.headers.get('x-service-mode'), meter: response.headers.get('x-service-quota-meter') }).toEqual({
      // The agent record's model, not the router's pick for a hard request.
      model: 'sim-small',
      // Capped by the agent record's plan, not the organization's.
      tier: 'standard',
      routed: 'true',
      baselineModel: 'sim-medium',
      baselineReason: 'plan_ceiling',
      mode: 'byok',
      // BYOK traffic is counted in requests, not dollars.
      meter: 'requests',
    });
    expect(recorder.last().keyFingerprint).toBe(keyFingerprint(providerKey));
    expect((await simulatorStats(e2e.stack.simulatorUrl)).recentKeyFingerprints.at(-1)).toBe(keyFingerprint(providerKey));
  });

  it("caps a bound key's named model at the agent record's plan", async () => {
    const { response } = await e2e.client(bound.key).chat.completions.create({ model: 'sim-large', messages: simple }).withResponse();
    expect(routing(response.headers)).toMatchObject({ model: 'sim-medium', baselineModel: 'sim-large', baselineReason: 'named' });
  });

  it('serves an unbound key as managed auto on the organization plan, with the managed provider key', async () => {
    const { response } = await unbound.chat.completions.create(hardRequest).withResponse();
    expectHeaderSet(response.headers);
    expect({ ...routing(response.headers), mode: response.headers.get('x-service-mode'), meter: response.headers.get('x-service-quota-meter') }).toEqual({
      model: 'sim-reasoning',
      tier: 'reasoning',
      routed: 'true',
      baselineModel: 'sim-reasoning',
      baselineReason: 'plan_ceiling',
      mode: 'managed',
      meter: 'spend',
    });
    const managed = keyFingerprint(e2e.stack.managedProviderKey);
    expect(recorder.last().keyFingerprint).toBe(managed);
    expect((await simulatorStats(e2e.stack.simulatorUrl)).recentKeyFingerprints.at(-1)).toBe(managed);
    expect(managed).not.toBe(keyFingerprint(providerKey));

    const named = await unbound.chat.completions.create({ model: 'sim-large', messages: simple }).withResponse();
    expect(routing(named.response.headers)).toMatchObject({ model: 'sim-large', routed: 'false' });
  });

  it('never writes the provider keys to a log', () => {
    expect(e2e.credentialsInLogs([providerKey, e2e.stack.managedProviderKey, bound.key])).toEqual([]);
  });
});

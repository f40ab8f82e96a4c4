import { inputTokenBound, worstCaseOf, type CatalogModel } from '@gateway/lib/catalog';
import fc from 'fast-check';
import { buildCompletion } from './completion';
import { parseChatRequest } from './request';
import { countPromptTokens } from './tokens';

/**
 * The gateway admits a call by the most it can cost; the bound must stay
 * above what a provider counts, for any text. The simulator counts with a
 * real tokenizer (o200k_base), as a provider reports usage.
 */
const model: CatalogModel = {
  id: 'sim-bound',
  provider: 'simulator',
  tier: 'simple',
  inputMicrosPerMillion: 3_000_000n,
  outputMicrosPerMillion: 15_000_000n,
  contextWindow: 10_000_000,
  maxOutputTokens: 64,
  unsupportedParams: new Set(),
};

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 400 }), fc.string({ maxLength: 400 }));
const message = fc.record(
  { role: fc.constantFrom('system', 'user', 'assistant', 'developer'), content: fc.oneof(text, fc.array(text.map((each) => ({ type: 'text', text: each })), { maxLength: 3 })), name: fc.option(fc.stringMatching(/^[a-z]{1,12}$/), { nil: undefined }) },
  { requiredKeys: ['role', 'content'] },
);
const tool = fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.stringMatching(/^[a-z_]{1,16}$/), description: text }) });
const body = fc.record(
  { model: fc.constant('sim-bound'), messages: fc.array(message, { minLength: 1, maxLength: 6 }), tools: fc.array(tool, { minLength: 1, maxLength: 2 }), max_tokens: fc.integer({ min: 1, max: 200 }) },
  { requiredKeys: ['model', 'messages'] },
);

describe("the gateway's worst-case bound", () => {
  it('is at or above the prompt tokens a provider counts, for any text', () => {
    fc.assert(
      fc.property(body, (raw) => {
        const request = parseChatRequest(raw);
        expect(inputTokenBound(raw, model)).toBeGreaterThanOrEqual(countPromptTokens(request));
      }),
      { numRuns: 300 },
    );
  });

  it('holds at least what the answer costs, output limit included', () => {
    fc.assert(
      // Within the model's output maximum, which a provider enforces and the simulator does not know.
      fc.property(body, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: model.maxOutputTokens }), (raw, n, maxTokens) => {
        const sent = { ...raw, n, max_tokens: maxTokens, tools: undefined };
        const { usage } = buildCompletion(parseChatRequest(sent));
        const worst = worstCaseOf(sent, model);
        expect(worst.outputTokens).toBeGreaterThanOrEqual(usage.completion_tokens);
        const cost = (BigInt(usage.prompt_tokens) * model.inputMicrosPerMillion + BigInt(usage.completion_tokens) * model.outputMicrosPerMillion + 500_000n) / 1_000_000n;
        expect(worst.costMicros).toBeGreaterThanOrEqual(cost);
      }),
      { numRuns: 100 },
    );
  });

  it('falls back to the context window for parts whose tokens do not follow from their bytes', () => {
    const withImage = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] };
    expect(inputTokenBound(withImage, model)).toBe(model.contextWindow);
    expect(inputTokenBound({ messages: [{ role: 'user', content: 'x'.repeat(100) }] }, { contextWindow: 50 })).toBe(50);
  });
});

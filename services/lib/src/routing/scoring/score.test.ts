import fc from 'fast-check';
import { SCORING_EXAMPLES } from './scoring-examples';
import { MAX_COMPLEXITY, WEIGHTS, scoreRequest, type ScoringInput, type SignalName } from './score';
import { SCORED_TIERS, TIER_THRESHOLDS, tierForScore } from './tiers';

const SIGNAL_ORDER: SignalName[] = ['length', 'turns', 'system_prompt', 'code', 'math', 'reasoning', 'tools', 'output'];

const ask = (content: string, extra: Partial<ScoringInput> = {}): ScoringInput => ({
  messages: [{ role: 'user', content }],
  toolCount: 0,
  maxOutputTokens: 0,
  ...extra,
});

function pointsOf(input: ScoringInput, name: SignalName): number {
  const signal = scoreRequest(input).signals.find((candidate) => candidate.name === name);
  if (!signal) throw new Error(`no ${name} signal`);
  return signal.points;
}

const message = fc.record({
  role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'),
  content: fc.string({ maxLength: 400 }),
});
const request = fc.record({
  messages: fc.array(message, { maxLength: 40 }),
  toolCount: fc.integer({ min: 0, max: 64 }),
  maxOutputTokens: fc.integer({ min: 0, max: 200_000 }),
});

describe('scoreRequest', () => {
  it.each(SCORING_EXAMPLES.map((example) => [example.name, example] as const))('scores %s as documented', (_name, example) => {
    const score = scoreRequest(example.input);
    const earned = Object.fromEntries(score.signals.filter(({ points }) => points > 0).map(({ name, points }) => [name, points]));
    expect({ complexity: score.complexity, tier: score.tier, signals: earned }).toEqual({
      complexity: example.complexity,
      tier: example.tier,
      signals: example.signals,
    });
  });

  it('is deterministic: the same request always gets the same score', () => {
    fc.assert(fc.property(request, (input) => expect(scoreRequest(input)).toEqual(scoreRequest(structuredClone(input)))));
  });

  it('returns every signal in a fixed order and a complexity equal to their clamped sum', () => {
    fc.assert(
      fc.property(request, (input) => {
        const { complexity, tier, signals } = scoreRequest(input);
        expect(signals.map(({ name }) => name)).toEqual(SIGNAL_ORDER);
        const sum = signals.reduce((total, { points }) => total + points, 0);
        expect(Number.isInteger(complexity)).toBe(true);
        expect(complexity).toBe(Math.min(MAX_COMPLEXITY, sum));
        expect(complexity).toBeGreaterThanOrEqual(0);
        expect(tier).toBe(tierForScore(complexity));
      }),
    );
  });

  it('clamps at 100 when the signals add up to more', () => {
    const everything: ScoringInput = {
      messages: [
        { role: 'system', content: 'x'.repeat(20_000) },
        ...Array.from({ length: 10 }, () => ({ role: 'user', content: 'earlier question' })),
        {
          role: 'user',
          content: `${'y'.repeat(40_000)} Prove step by step, and explain why, that the integral $\\int_0^1 x^2 dx = 1/3$.\n\`\`\`py\ndef f(x): return x ** 2\n\`\`\``,
        },
      ],
      toolCount: 20,
      maxOutputTokens: 32_000,
    };
    const score = scoreRequest(everything);
    expect(score.signals.reduce((total, { points }) => total + points, 0)).toBeGreaterThan(MAX_COMPLEXITY);
    expect(score).toMatchObject({ complexity: 100, tier: 'reasoning' });
  });
});

describe('each signal moves the score up', () => {
  const base = ask('Tell me about the weather.');
  const baseScore = scoreRequest(base).complexity;

  it.each<[SignalName, ScoringInput]>([
    ['length', ask(`Tell me about the weather. ${'It was sunny and mild all week long. '.repeat(40)}`)],
    [
      'turns',
      {
        ...base,
        messages: [
          { role: 'user', content: 'Hello.' },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Tell me about the weather.' },
        ],
      },
    ],
    ['system_prompt', { ...base, messages: [{ role: 'system', content: 'Answer as a meteorologist. '.repeat(60) }, ...base.messages] }],
    ['code', ask('Tell me about the weather.\n```py\nprint(forecast())\n```')],
    ['math', ask('Tell me about the weather: solve 2x + 3 = 7 for the temperature.')],
    ['reasoning', ask('Tell me about the weather, and explain why it changes.')],
    ['tools', { ...base, toolCount: 2 }],
    ['output', { ...base, maxOutputTokens: 5000 }],
  ])('%s', (name, richer) => {
    expect(pointsOf(base, name)).toBe(0);
    expect(pointsOf(richer, name)).toBeGreaterThan(0);
    expect(scoreRequest(richer).complexity).toBeGreaterThan(baseScore);
  });

  it('length grows with the text, with diminishing returns', () => {
    const at = (chars: number) => pointsOf(ask('a'.repeat(chars)), 'length');
    fc.assert(fc.property(fc.nat(50_000), fc.nat(50_000), (a, b) => expect(at(Math.min(a, b))).toBeLessThanOrEqual(at(Math.max(a, b)))));
    // The first thousand characters earn more than the sixteen thousand from 16K to 32K,
    // and no doubling earns more than a few points.
    expect(at(1_000) - at(0)).toBeGreaterThan(at(32_000) - at(16_000));
    fc.assert(fc.property(fc.integer({ min: 200, max: 40_000 }), (chars) => expect(at(2 * chars) - at(chars)).toBeLessThanOrEqual(4)));
    expect(at(10_000_000)).toBe(25);
  });

  it('tools and requested output size never lower the score as they grow', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.nat(100), (a, b) =>
        expect(pointsOf({ ...base, toolCount: Math.min(a, b) }, 'tools')).toBeLessThanOrEqual(pointsOf({ ...base, toolCount: Math.max(a, b) }, 'tools')),
      ),
    );
    fc.assert(
      fc.property(fc.nat(100_000), fc.nat(100_000), (a, b) =>
        expect(pointsOf({ ...base, maxOutputTokens: Math.min(a, b) }, 'output')).toBeLessThanOrEqual(
          pointsOf({ ...base, maxOutputTokens: Math.max(a, b) }, 'output'),
        ),
      ),
    );
    expect(pointsOf({ ...base, toolCount: 1 }, 'tools')).toBe(WEIGHTS.tools.first);
    expect(pointsOf({ ...base, toolCount: 1_000 }, 'tools')).toBe(WEIGHTS.tools.max);
  });

  it('counts user turns after the first, up to the cap', () => {
    const turns = (count: number) =>
      pointsOf({ ...base, messages: Array.from({ length: count }, (_, index) => ({ role: 'user', content: `question ${index}` })) }, 'turns');
    expect([turns(1), turns(2), turns(3)]).toEqual([0, WEIGHTS.turnPoints, 2 * WEIGHTS.turnPoints]);
    expect(turns(30)).toBe(WEIGHTS.maxTurnPoints);
  });

  it('grades code: vocabulary, then syntax, then a fenced block', () => {
    const code = (text: string) => pointsOf(ask(text), 'code');
    expect(code('How do I reverse a list in Python?')).toBe(WEIGHTS.code.vocabulary);
    expect(code('const total = 1;\nconsole.log(total);')).toBe(WEIGHTS.code.syntax);
    expect(code('```\nanything\n```')).toBe(WEIGHTS.code.fence);
    expect(code('The cat sat on the mat.')).toBe(0);
  });

  it('counts each kind of math content once: LaTeX, equations, vocabulary, proof', () => {
    const math = (text: string) => pointsOf(ask(text), 'math');
    expect(math('What is \\frac{1}{2} plus one third?')).toBe(WEIGHTS.math[1]);
    expect(math('Find the derivative of x^3.')).toBe(WEIGHTS.math[2]);
    expect(math('Prove that the derivative of x^3 is 3x^2.')).toBe(WEIGHTS.math[3]);
    expect(math('Prove that the derivative of $x^3$ is 3x^2 using \\lim.')).toBe(WEIGHTS.math[3]);
    expect(math('It costs $5 or $10 depending on the day.')).toBe(0);
  });

  it('gives points per distinct reasoning cue, not per repetition, up to three', () => {
    const reasoning = (text: string) => pointsOf(ask(text), 'reasoning');
    expect(reasoning('why why why why')).toBe(WEIGHTS.reasoningPerCue);
    expect(reasoning('Analyze and compare them.')).toBe(2 * WEIGHTS.reasoningPerCue);
    expect(reasoning('Analyze, compare, plan, evaluate and explain why.')).toBe(WEIGHTS.maxReasoningCues * WEIGHTS.reasoningPerCue);
  });

  it('matches cues regardless of case', () => {
    expect(scoreRequest(ask('EXPLAIN WHY, STEP BY STEP'))).toEqual(scoreRequest(ask('explain why, step by step')));
  });
});

describe('tierForScore', () => {
  it.each([
    [0, 'simple'],
    [24, 'simple'],
    [25, 'standard'],
    [49, 'standard'],
    [50, 'complex'],
    [74, 'complex'],
    [75, 'reasoning'],
    [100, 'reasoning'],
  ])('puts %d in %s', (score, tier) => expect(tierForScore(score)).toBe(tier));

  it('has one threshold per tier, in tier order, starting at 0', () => {
    expect(TIER_THRESHOLDS.map(({ tier }) => tier)).toEqual([...SCORED_TIERS]);
    expect(TIER_THRESHOLDS[0]?.from).toBe(0);
    const starts = TIER_THRESHOLDS.map(({ from }) => from);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });
});

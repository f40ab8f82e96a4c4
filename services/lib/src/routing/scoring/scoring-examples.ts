import type { ScoredTier, ScoringInput } from './index';

/**
 * Worked examples: the requests services/router/README.md walks through, with
 * the score and tier each gets. The unit tests hold the scorer to them and the
 * scoring benchmark replays them as its request mix.
 */
export interface ScoringExample {
  name: string;
  input: ScoringInput;
  complexity: number;
  tier: ScoredTier;
  /** The signals with points, in the scorer's order. */
  signals: Record<string, number>;
}

const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });
const system = (content: string) => ({ role: 'system', content });
const plain = (...messages: ScoringInput['messages']): ScoringInput => ({ messages, toolCount: 0, maxOutputTokens: 0 });

const snippet = 'const total = items.reduce((sum, item) => sum + item.price, 0);\n'.repeat(20);
const pastedReport = 'Quarterly revenue grew in every region, led by the new enterprise contracts. '.repeat(60);
const chatHistory = [
  user('Can you help me plan a trip to Japan in April?'),
  assistant('Of course. How many days do you have, and which cities interest you?'),
  user('Ten days. Tokyo and Kyoto for sure, maybe Osaka.'),
  assistant('Here is a rough outline: four days in Tokyo, four in Kyoto, two in Osaka.'),
  user('Sounds good. What about the rail pass?'),
];

export const SCORING_EXAMPLES: readonly ScoringExample[] = [
  {
    name: 'a greeting',
    input: plain(user('hi')),
    complexity: 0,
    tier: 'simple',
    signals: {},
  },
  {
    name: 'a factual lookup',
    input: plain(user("What's the capital of France?")),
    complexity: 0,
    tier: 'simple',
    signals: {},
  },
  {
    name: 'a short explanation',
    input: plain(user('Explain why the sky is blue.')),
    complexity: 20,
    tier: 'simple',
    signals: { reasoning: 20 },
  },
  {
    name: 'a request for a small function',
    input: plain(user('Write a Python function that parses a CSV file and returns the rows as dicts.')),
    complexity: 8,
    tier: 'simple',
    signals: { code: 8 },
  },
  {
    name: 'a short multi-turn chat',
    input: plain(...chatHistory),
    complexity: 7,
    tier: 'simple',
    signals: { length: 3, turns: 4 },
  },
  {
    name: 'a comparison with trade-offs',
    input: plain(user('Compare PostgreSQL and MySQL for a write-heavy workload and explain the trade-offs.')),
    complexity: 30,
    tier: 'standard',
    signals: { reasoning: 30 },
  },
  {
    name: 'a long document to summarize',
    input: plain(system('You are a concise analyst.'), user(`Summarize this report in five bullet points:\n\n${pastedReport}`)),
    complexity: 15,
    tier: 'simple',
    signals: { length: 15 },
  },
  {
    name: 'debugging pasted code',
    input: plain(user(`Why does this throw a TypeError?\n\`\`\`js\n${snippet}\`\`\``)),
    complexity: 39,
    tier: 'standard',
    signals: { length: 9, code: 20, reasoning: 10 },
  },
  {
    name: 'a proof with LaTeX',
    input: {
      messages: [user('Prove step by step that the integral of $e^{-x^2}$ over the real line equals \\sqrt{\\pi}.')],
      toolCount: 0,
      maxOutputTokens: 2000,
    },
    complexity: 50,
    tier: 'complex',
    signals: { math: 36, reasoning: 10, output: 4 },
  },
  {
    name: 'a design task with tools',
    input: {
      messages: [
        system('You are a staff engineer. '.repeat(50)),
        user('Design the architecture for a multi-region payment system; analyze failure modes step by step and plan the migration.'),
      ],
      toolCount: 3,
      maxOutputTokens: 4000,
    },
    complexity: 51,
    tier: 'complex',
    signals: { system_prompt: 3, reasoning: 30, tools: 10, output: 8 },
  },
  {
    name: 'an agentic coding session',
    input: {
      messages: [
        system('You are a coding agent. Use the tools to read and edit files. '.repeat(20)),
        user('The checkout tests fail after the refactor.'),
        assistant('I will read the failing test first.'),
        user('Go ahead.'),
        assistant('The total is computed before the discount is applied.'),
        user(`Here is the module. Find the root cause, explain why it fails, and plan a fix:\n\`\`\`ts\n${snippet}\`\`\``),
      ],
      toolCount: 5,
      maxOutputTokens: 8000,
    },
    complexity: 86,
    tier: 'reasoning',
    signals: { length: 9, turns: 4, system_prompt: 3, code: 20, reasoning: 30, tools: 12, output: 8 },
  },
];

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { PROCESS_READY_TIMEOUT_MS, startService, type ServiceProcess } from '../../../test/support/processes';
import type { SimulatorStats } from '../src/stats';

/** Test kit for suites that run against a real simulator process. */

/** Start-up loads the tokenizer's ranks; give a busy machine time. Hooks that start one need START_TIMEOUT_MS. */
const READY_TIMEOUT_MS = PROCESS_READY_TIMEOUT_MS;
export const START_TIMEOUT_MS = READY_TIMEOUT_MS + 10_000;

export async function startSimulatorProcess(env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startService({ name: 'simulator', entry: 'services/simulator/src/main.ts', env, readyTimeoutMs: READY_TIMEOUT_MS });
}

export async function simulatorStats(simulator: ServiceProcess): Promise<SimulatorStats> {
  const response = await fetch(`http://${simulator.address}/simulator/stats`);
  return (await response.json()) as SimulatorStats;
}

interface PromptMessage {
  role: string;
  content: string;
}

/**
 * prompt_tokens by the recipe the simulator documents, computed here straight
 * from the tokenizer: 3 + per message (3 + role + content) + tools JSON.
 */
export function expectedPromptTokens(messages: readonly PromptMessage[], tools?: readonly unknown[]): number {
  const perMessage = messages.reduce((sum, message) => sum + 3 + countTokens(message.role) + countTokens(message.content), 0);
  return 3 + perMessage + (tools && tools.length > 0 ? countTokens(JSON.stringify(tools)) : 0);
}

export function tokensIn(text: string): number {
  return countTokens(text);
}

/** The `data:` payloads of an SSE body, in order. */
export function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

import type { Kysely } from 'kysely';
import type { ChatCompletionFunctionTool, ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import { parseInput } from '@gateway/lib/validation';
import { createWorkflow } from '../automation/workflows';
import type { AgentDatabase } from '../db/schema';
import { MEMORY_KEY_MAX, MEMORY_VALUE_MAX, memoryCategories } from '../db/tables/memories';
import { workflowCommands } from '../db/tables/workflows';
import { memoryFields, recallEntries, rememberEntry } from '../memory/memories';

/**
 * The function tools the agent offers the model. Each call is checked like
 * any other input, run against the agent record's own data, and answered
 * with a JSON result the model reads; a call that fails answers
 * `{ok: false, error}` instead of failing the chat, so the model can say so.
 */
export const AGENT_TOOLS: readonly ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'remember',
      description: 'Store a memory entry for later: a fact, preference, contact or project detail. An existing key is overwritten.',
      parameters: {
        type: 'object',
        properties: {
          key: { type: 'string', description: 'A short name for the entry, e.g. "favourite editor".', minLength: 1, maxLength: MEMORY_KEY_MAX },
          value: { type: 'string', description: 'What to remember.', minLength: 1, maxLength: MEMORY_VALUE_MAX },
          category: { type: 'string', enum: [...memoryCategories] },
        },
        required: ['key', 'value', 'category'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'recall',
      description: 'Look up stored memory entries whose key or value contains the query, optionally of one category.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to look for; empty for the most recent entries.' },
          category: { type: 'string', enum: [...memoryCategories] },
        },
        required: [],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'create_automation',
      description:
        'Create a workflow that runs later or repeatedly: a reminder or a scheduled task. Describe what and when in plain words, in UTC.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', enum: ['remind', 'schedule', 'automate', 'trigger'], description: 'remind: a reminder; trigger: run now.' },
          text: { type: 'string', description: 'What to do and when, e.g. "every weekday at 9am summarise my open sessions".' },
        },
        required: ['command', 'text'],
        additionalProperties: false,
      },
    },
  },
];

export interface ToolContext {
  db: Kysely<AgentDatabase>;
  agentId: string;
  userId: string;
}

export interface ToolOutcome {
  name: string;
  arguments: unknown;
  ok: boolean;
  /** What the model reads back. */
  result: Record<string, unknown>;
  /** One line for the session's history. */
  summary: string;
}

const rememberArguments = z.object(memoryFields);
const recallArguments = z.object({ query: z.string().max(200).optional(), category: memoryFields.category.optional() });
const automationArguments = z.object({ command: z.enum(workflowCommands), text: z.string().max(500) });

type ToolRunner = (context: ToolContext, args: unknown) => Promise<Omit<ToolOutcome, 'name' | 'arguments' | 'ok'>>;

const RUNNERS: Record<string, ToolRunner> = {
  remember: async ({ db, agentId }, args) => {
    const entry = parseInput(rememberArguments, args);
    const { memory, created } = await rememberEntry(db, agentId, entry);
    return {
      result: { ok: true, key: memory.key, category: memory.category, created },
      summary: `${created ? 'Remembered' : 'Updated'} "${memory.key}" (${memory.category}).`,
    };
  },
  recall: async ({ db, agentId }, args) => {
    const filter = parseInput(recallArguments, args);
    const entries = await recallEntries(db, agentId, filter);
    return {
      result: { ok: true, entries: entries.map(({ key, value, category }) => ({ key, value, category })) },
      summary: `Recalled ${entries.length} memory entr${entries.length === 1 ? 'y' : 'ies'}.`,
    };
  },
  create_automation: async ({ db, agentId, userId }, args) => {
    const { command, text } = parseInput(automationArguments, args);
    const workflow = await createWorkflow(db, { agentId, userId }, command, text);
    return {
      result: { ok: true, workflow_id: workflow.id, task: workflow.task, schedule: workflow.schedule, next_run_at: workflow.next_run_at },
      summary: `Created a workflow: ${workflow.task} (${workflow.schedule}).`,
    };
  },
};

/** Runs one tool call of the model. Bad arguments or an unknown tool become a failed result, never a failed chat. */
export async function runToolCall(context: ToolContext, call: ChatCompletionMessageFunctionToolCall): Promise<ToolOutcome> {
  const { name } = call.function;
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    return failed(name, call.function.arguments, 'the arguments are not valid JSON');
  }
  const runner = RUNNERS[name];
  if (!runner) return failed(name, args, `no tool is called ${name}; the tools are ${Object.keys(RUNNERS).join(', ')}`);
  try {
    return { name, arguments: args, ok: true, ...(await runner(context, args)) };
  } catch (error) {
    // A domain refusal is the model's to read; anything else is a real failure of the chat.
    if (error instanceof DomainError && (error.kind === 'validation' || error.kind === 'conflict')) return failed(name, args, error.message);
    throw error;
  }
}

function failed(name: string, args: unknown, problem: string): ToolOutcome {
  return { name, arguments: args, ok: false, result: { ok: false, error: problem }, summary: `${name} failed: ${problem}` };
}

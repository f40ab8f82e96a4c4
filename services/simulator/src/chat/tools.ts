import { exampleValue } from './json-value';
import { lastUserMessage, messageText, type ChatRequest, type ToolDefinition } from './request';

/**
 * When the simulator answers with tool calls instead of text (tools offered, and
 * tool_choice is not "none"):
 * - tool_choice "required": the functions the last user message names, else the first tool;
 * - tool_choice naming a function: that function;
 * - tool_choice "auto" or absent: only when the conversation ends with a user
 *   message (not a tool result) that names an offered function or contains the
 *   word "tool"; then the named functions, else the first tool.
 * With parallel_tool_calls false, at most one call.
 */
export function chooseToolCalls(request: ChatRequest): ToolDefinition[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((tool) => tool.function.name === choice.function.name).slice(0, 1);

  const lastUser = lastUserMessage(request);
  const text = lastUser ? messageText(lastUser).toLowerCase() : '';
  const named = tools.filter((tool) => text.includes(tool.function.name.toLowerCase()));
  if (choice !== 'required') {
    const endsWithUser = request.messages[request.messages.length - 1]?.role === 'user';
    if (!endsWithUser || (named.length === 0 && !/\btools?\b/.test(text))) return [];
  }
  const calls = named.length > 0 ? named : tools.slice(0, 1);
  return request.parallel_tool_calls === false ? calls.slice(0, 1) : calls;
}

/** The JSON arguments of a call to `tool`, built from its parameters schema. */
export function toolArguments(tool: ToolDefinition): string {
  const parameters = tool.function.parameters ?? { type: 'object', properties: {} };
  return JSON.stringify(exampleValue(parameters, tool.function.name));
}

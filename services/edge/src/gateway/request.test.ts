import type OpenAI from 'openai';
import { DomainError } from '@gateway/lib/errors';
import { parseChatCompletionBody } from './request';

/** Messages typed with the `openai` package's own param types: the reference for what the API accepts. */
const accepted: Array<[string, OpenAI.ChatCompletionMessageParam[]]> = [
  ['system, developer and user strings, with names', [
    { role: 'system', content: 'Be brief.', name: 'policy' },
    { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
    { role: 'user', content: 'Hi', name: 'ada' },
  ]],
  ['user content parts of every documented type', [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
        { type: 'file', file: { file_id: 'file-abc' } },
      ],
    },
  ]],
  ['an assistant turn with tool calls and no content key, then the tool result', [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"temp":18}' },
  ]],
  ['an assistant turn with null content, a refusal part, a custom tool call and audio', [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_2', type: 'custom', custom: { name: 'grep', input: 'needle' } }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Sure.' }, { type: 'refusal', refusal: 'Not that.' }], audio: { id: 'audio_1' } },
  ]],
  ['the legacy function role and function_call', [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{}' } },
    { role: 'function', name: 'lookup', content: null },
    { role: 'tool', tool_call_id: 'call_3', content: [{ type: 'text', text: 'done' }] },
  ]],
];

function refusal(body: unknown): DomainError {
  try {
    parseChatCompletionBody(body);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('parseChatCompletionBody', () => {
  it.each(accepted)('accepts %s', (_label, messages) => {
    expect(parseChatCompletionBody({ model: 'auto', messages }).messages).toEqual(messages);
  });

  it.each([
    ['an unknown role', [{ role: 'robot', content: 'beep' }], 'messages.0.role', /messages\.0\.role: expected one of system, developer, user, assistant, tool, function/],
    ['a user message without content', [{ role: 'user' }], 'messages.0.content', /Missing required field messages\.0\.content: must be a string or an array of content parts \(type text, image_url, input_audio, file\)/],
    ['a number as content', [{ role: 'user', content: 5 }], 'messages.0.content', /must be a string or an array of content parts \(type text, image_url, input_audio, file\)/],
    ['an image part in a system message', [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'x' } }] }], 'messages.0.content.0.type', /Invalid messages\.0\.content\.0\.type: must be a content part of type text\./],
    ['an unknown part type', [{ role: 'user', content: [{ type: 'video', video: {} }] }], 'messages.0.content.0.type', /must be a content part of type text, image_url, input_audio, file/],
    ['a tool message without tool_call_id', [{ role: 'tool', content: 'x' }], 'messages.0.tool_call_id', /Missing required field messages\.0\.tool_call_id: expected string/],
    ['an audio format outside the list', [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'ogg' } }] }], 'messages.0.content.0.input_audio.format', /expected one of "wav", "mp3"/],
    ['a function message without a name', [{ role: 'function', content: 'x' }], 'messages.0.name', /Missing required field messages\.0\.name/],
  ])('refuses %s, naming the field and what was expected', (_label, messages, field, message) => {
    const error = refusal({ model: 'auto', messages });
    expect(error.kind).toBe('validation');
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });
});

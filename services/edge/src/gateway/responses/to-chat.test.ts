import type OpenAI from 'openai';
import { DomainError } from '@gateway/lib/errors';
import { readResponsesRequest } from './to-chat';

function refusal(body: Record<string, unknown>): DomainError {
  try {
    readResponsesRequest({ model: 'auto', ...body });
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the request was accepted');
}

describe('readResponsesRequest', () => {
  it('turns instructions and input items into the chat conversation they mean', () => {
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'developer', content: 'Use metric units.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is this, and the weather?' },
          { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
        ],
      },
      { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18' },
      { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '4' }] },
    ];
    const { body } = readResponsesRequest({ model: 'auto', instructions: 'Be brief.', input, max_output_tokens: 50, temperature: 0.2, user: 'u1' });
    expect(body).toEqual({
      model: 'auto',
      max_completion_tokens: 50,
      temperature: 0.2,
      user: 'u1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric units.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this, and the weather?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          ],
        },
        // Text and the calls of the same turn are one assistant message.
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '4' }] },
      ],
    });
  });

  it('maps tools, tool_choice and text formats onto their chat shapes', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    const { body } = readResponsesRequest({
      model: 'auto',
      input: 'Hi',
      tools: [{ type: 'function', name: 'lookup', description: 'Looks up.', parameters: schema, strict: true }],
      tool_choice: { type: 'function', name: 'lookup' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } },
      reasoning: { effort: 'low' },
      stream: true,
    });
    expect(body).toMatchObject({
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'lookup', description: 'Looks up.', parameters: schema, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
      reasoning_effort: 'low',
      stream: true,
    });
  });

  it.each([
    ['an image in a system message', { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'x', detail: 'auto' }] }] }, 'input[0].content[0].type', /only user messages may carry images and files/],
    ['an image by file id', { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }] }, 'input[0].content[0].image_url', /file ids are not supported/],
    ['a file by URL', { input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://example.com/a.pdf' }] }] }, 'input[0].content[0].file_url', /send the file as file_data/],
    ['a missing input', {}, 'input', /is required/],
    ['a tool_choice of a built-in tool', { input: 'Hi', tool_choice: { type: 'web_search_preview' } }, 'tool_choice', /only function tools/],
    ['a text format of another type', { input: 'Hi', text: { format: { type: 'yaml' } } }, 'text.format.type', /text, json_object, json_schema/],
  ])('refuses %s, naming the field', (_label, body, field, message) => {
    const error = refusal(body);
    expect({ kind: error.kind, field: error.field }).toEqual({ kind: 'validation', field });
    expect(error.message).toMatch(message);
  });
});

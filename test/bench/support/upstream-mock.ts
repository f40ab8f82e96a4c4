/**
 * The upstream of `npm run bench:compare`: the least an OpenAI-compatible
 * chat-completions server can be, on node:http with no framework, so that
 * every gateway measured against it is charged for its own work only. It
 * answers any model at once, with usage, non-streamed or streamed (with the
 * usage chunk when `stream_options.include_usage` asks for it), the same for
 * every caller. Runs as its own process and prints the port it bound on stdout.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const ANSWER = 'A gateway is a single door that every request passes through on its way to the services behind it.';
const PIECES = ANSWER.match(/.{1,24}(\s|$)/g) ?? [ANSWER];
const COMPLETION_TOKENS = 20;

interface ChatBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
}

function usage(bodyBytes: number) {
  // About four bytes a token: a stand-in, the same for every caller.
  const prompt = Math.ceil(bodyBytes / 4);
  return { prompt_tokens: prompt, completion_tokens: COMPLETION_TOKENS, total_tokens: prompt + COMPLETION_TOKENS };
}

function complete(res: ServerResponse, model: string, bodyBytes: number): void {
  const created = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({
    id: `chatcmpl-mock-${created}`,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
    usage: usage(bodyBytes),
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function stream(res: ServerResponse, model: string, bodyBytes: number, includeUsage: boolean): void {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: `chatcmpl-mock-${created}`, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
  for (const piece of PIECES) res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  if (includeUsage) res.write(chunk([], { usage: usage(bodyBytes) }));
  res.end('data: [DONE]\n\n');
}

function answer(res: ServerResponse, raw: Buffer): void {
  let body: ChatBody;
  try {
    body = JSON.parse(raw.toString('utf8')) as ChatBody;
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"the body is not JSON","type":"invalid_request_error"}}');
    return;
  }
  const model = typeof body.model === 'string' ? body.model : 'mock';
  if (body.stream === true) stream(res, model, raw.length, body.stream_options?.include_usage === true);
  else complete(res, model, raw.length);
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || !req.url?.startsWith('/v1/chat/completions')) {
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"only POST /v1/chat/completions","type":"invalid_request_error"}}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => answer(res, Buffer.concat(chunks)));
});
// Longer than any client's keep-alive, so clients always close first.
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));

import { request } from 'node:http';
import { headersFrom } from './headers';

/**
 * Raw HTTP for what the official client cannot express: a body that is not
 * JSON, no credential at all, and HTTP trailers (fetch never exposes them).
 */
export interface RawResponse {
  status: number;
  headers: Headers;
  json: unknown;
}

export async function postRaw(url: string, body: string, headers: Record<string, string>): Promise<RawResponse> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? undefined : JSON.parse(text) };
}

export interface StreamedResponse {
  status: number;
  headers: Headers;
  trailers: Headers;
  /** Every `data:` payload in order, JSON-parsed, except the final `[DONE]`. */
  events: unknown[];
  /** The `event:` name of each of those, where one was sent (the Responses API names its events). */
  names: Array<string | undefined>;
  /** The stream ended with `data: [DONE]`. */
  done: boolean;
}

/** A streamed answer (chat completion or Responses API) read with node's http client, trailers included. */
export function streamRaw(url: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<StreamedResponse> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          text += piece;
        });
        response.on('error', reject);
        response.on('end', () => {
          const blocks = text
            .split('\n\n')
            .map((block) => block.trim().split('\n'))
            .map((lines) => ({
              name: lines.find((line) => line.startsWith('event: '))?.slice('event: '.length),
              data: lines.find((line) => line.startsWith('data: '))?.slice('data: '.length),
            }))
            .filter((block): block is { name: string | undefined; data: string } => block.data !== undefined);
          const done = blocks.at(-1)?.data === '[DONE]';
          const events = done ? blocks.slice(0, -1) : blocks;
          resolve({
            status: response.statusCode ?? 0,
            headers: headersFrom(response.headers),
            trailers: headersFrom(response.trailers),
            events: events.map((event) => JSON.parse(event.data) as unknown),
            names: events.map((event) => event.name),
            done,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

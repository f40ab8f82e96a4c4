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
  /** The stream ended with `data: [DONE]`. */
  done: boolean;
}

/** A streamed chat completion read with node's http client, trailers included. */
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
          const data = text
            .split('\n\n')
            .map((event) => event.trim())
            .filter((event) => event.startsWith('data: '))
            .map((event) => event.slice('data: '.length));
          const done = data.at(-1) === '[DONE]';
          resolve({
            status: response.statusCode ?? 0,
            headers: headersFrom(response.headers),
            trailers: headersFrom(response.trailers),
            events: (done ? data.slice(0, -1) : data).map((event) => JSON.parse(event) as unknown),
            done,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';

/**
 * An OTLP/HTTP trace receiver (POST /v1/traces, JSON encoding), standing in
 * for the collector: every process of a stack exports its spans here.
 */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** Attribute values as JSON has them: strings, numbers (64-bit integers arrive as strings), booleans, arrays. */
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

export interface OtlpReceiver {
  endpoint: string;
  spans(): ReceivedSpan[];
  /** Every request body as received (decoded), to scan for secrets. */
  payloads(): string[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
const anyValue: z.ZodType<AnyValue> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      intValue: z.union([z.string(), z.number()]).optional(),
      doubleValue: z.number().optional(),
      boolValue: z.boolean().optional(),
      arrayValue: z.object({ values: z.array(anyValue).optional() }).optional(),
    })
    .loose(),
);
const attribute = z.object({ key: z.string(), value: anyValue });

function valueOf(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}
const exportRequest = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(attribute).default([]) }).loose(),
      scopeSpans: z.array(
        z.object({
          spans: z.array(
            z
              .object({
                traceId: z.string(),
                spanId: z.string(),
                parentSpanId: z.string().optional(),
                name: z.string(),
                kind: z.number().int().default(0),
                attributes: z.array(attribute).default([]),
                links: z.array(z.object({ traceId: z.string(), spanId: z.string() }).loose()).default([]),
              })
              .loose(),
          ),
        }),
      ),
    }),
  ),
});

function spansOf(payload: string): ReceivedSpan[] {
  const parsed = exportRequest.parse(JSON.parse(payload));
  return parsed.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const service = resource.attributes.find(({ key }) => key === 'service.name')?.value.stringValue ?? '';
    return scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: Object.fromEntries(span.attributes.map(({ key, value }) => [key, valueOf(value)])),
        links: span.links.map(({ traceId, spanId }) => ({ traceId, spanId })),
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const payloads: string[] = [];
  const failures: string[] = [];
  const server = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (piece: Buffer) => pieces.push(piece));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(pieces);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      try {
        const text = body.toString('utf8');
        spans.push(...spansOf(text));
        payloads.push(text);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (error) {
        // Not JSON (say, protobuf): keep why, so the suite can say what it got.
        failures.push(`${String(req.headers['content-type'])}: ${error instanceof Error ? error.message : String(error)}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans: () => {
      if (failures.length > 0) throw new Error(`the receiver could not decode exports: ${failures.join('; ')}`);
      return [...spans];
    },
    payloads: () => [...payloads],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import {
  Metadata,
  credentials,
  makeGenericClientConstructor,
  type ServiceDefinition,
  type CallOptions,
  type ClientDuplexStream,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { outageReporter, type OutageLogger } from '../outages';
import { callTimer } from './call-metrics';
import { callSpans } from './call-spans';
import { startClientCall, type ClientMethod } from './client-call';
import { callOverStreams, type StreamedCalls } from './call-streams';
import { followConnectivity } from './connectivity';
import type { AnswerEnvelope, CallEnvelope, CallRequestOf, CallResponseOf, RequestOf, ResponseOf, RpcServiceDefinition } from './methods';
import { fromGrpcError } from './status';

export interface CallSettings {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
  metadata?: Metadata;
}

/** A long-lived stream has no deadline: it lasts until the server ends it or the caller aborts. */
export interface StreamSettings {
  metadata?: Metadata;
  signal?: AbortSignal;
}

/**
 * A promise-returning client: one method per RPC, each unary call with a
 * deadline; a server-streaming RPC gives an async iterable of its responses
 * that ends when the server ends the stream (or the caller aborts) and throws
 * the mapped DomainError when the stream fails; a call-stream RPC is called
 * like a unary one, its calls carried over streams kept open (call-streams.ts).
 */
export type PromiseClient<D> = {
  [K in keyof D]: D[K] extends { requestStream: true }
    ? (request: CallRequestOf<D[K]>, settings?: CallSettings) => Promise<CallResponseOf<D[K]>>
    : D[K] extends { responseStream: true }
      ? (request: RequestOf<D[K]>, settings?: StreamSettings) => AsyncIterable<ResponseOf<D[K]>>
      : (request: RequestOf<D[K]>, settings?: CallSettings) => Promise<ResponseOf<D[K]>>;
} & {
  /**
   * Whether the channel holds a live connection to the service, or is making
   * one again after the server ended the last in order (connectivity.ts); no
   * call is made.
   */
  isConnected(): boolean;
  close(): void;
};

export interface ClientOptions {
  /** Name used in error messages ("the auth service is unavailable"). */
  serviceName: string;
  /**
   * A gRPC target: `host:port`, `dns:///host:port` (every address the name
   * resolves to: a headless Service's pods), or several fixed addresses
   * `ipv4:127.0.0.1:50052,127.0.0.1:50062`. Calls are spread over all of them.
   */
  address: string;
  /** Deadline applied to every call that does not set its own. */
  deadlineMs: number;
  /**
   * Where the service's outages are reported: one line when calls stop
   * reaching it, one when a call does again, each failed call counted (lib's
   * outage reporter). Its callers then need not log those failures per call.
   */
  logger?: OutageLogger;
  /** How often an open connection is pinged to tell a peer that vanished without closing it; KEEPALIVE_MS unless set. */
  keepaliveMs?: number;
}

/** A connection whose peer is gone is found within this plus grpc-js's 20 s ping timeout. */
const KEEPALIVE_MS = 30_000;

/**
 * One call to each address in turn, over a connection per address, instead
 * of grpc-js's default of every call on the first address that answers: with
 * a headless Service that is what spreads a client's calls over the pods.
 * Retries stay off except gRPC's transparent ones: a call the server never
 * started (one that raced the GOAWAY of a server that is shutting down) is
 * made again on another connection, so a backend's drain fails no call.
 */
export const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * How soon a backend that comes back is used. grpc-js reconnects a lost
 * connection with a backoff that grows from 1 s by 1.6 times per failed
 * attempt up to 120 s (each delay ±20 %), and a call made meanwhile fails at
 * once without shortening it: after a few minutes' outage the service was
 * used 30 s after it served again. Here attempts grow from 100 ms to at most
 * 500 ms apart, so a backend is connected to within 500 ms × 1.2 (jitter) =
 * 600 ms of listening, however long it was away (the multiplier and the
 * jitter are grpc-js's own, restated for the bound). A refused connection costs
 * the client next to nothing, so the attempts are cheap even when a backend
 * stays down.
 */
export const RECONNECT_BACKOFF = { initialMs: 100, maxMs: 500, multiplier: 1.6, jitter: 0.2 } as const;

/**
 * A `dns:///` target is resolved again when its connections fail, but by
 * default at most every 30 s: a pod that comes back at a new address (a
 * headless Service) would be found that late. Once a second is cheap for the
 * cluster's DNS and keeps the same bound as the reconnects.
 */
const DNS_MIN_RESOLUTION_INTERVAL_MS = 1000;

/** The channel options that bound how late a returning backend is used; every gRPC client of lib's has them (health probes too). */
export const RECONNECT_CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': RECONNECT_BACKOFF.initialMs,
  'grpc.max_reconnect_backoff_ms': RECONNECT_BACKOFF.maxMs,
  'grpc.dns_min_time_between_resolutions_ms': DNS_MIN_RESOLUTION_INTERVAL_MS,
} as const;

/**
 * Builds a client from a ts-proto service definition. Every call carries a
 * deadline and every failure comes back as the DomainError of the server, or
 * as `timeout` / `unavailable` when the service did not answer.
 */
export function createPromiseClient<D extends RpcServiceDefinition>(
  definition: D,
  { serviceName, address, deadlineMs, logger, keepaliveMs = KEEPALIVE_MS }: ClientOptions,
): PromiseClient<D> {
  const outages = logger ? outageReporter(logger, serviceName) : undefined;
  const Constructor = makeGenericClientConstructor(definition as unknown as ServiceDefinition, serviceName);
  const client = new Constructor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': keepaliveMs,
    'grpc.service_config': ROUND_ROBIN,
    ...RECONNECT_CHANNEL_OPTIONS,
    // Channelz statistics cost time on every call and nothing here reads them.
    'grpc.enable_channelz': 0,
  });
  type UnaryCallback = (error: ServiceError | null, response?: unknown) => void;
  type UnaryMethod = (request: unknown, metadata: Metadata, options: CallOptions, callback: UnaryCallback) => void;
  type StreamMethod = (request: unknown, metadata: Metadata, options: CallOptions) => ClientReadableStream<unknown>;
  type CallStreamMethod = (metadata: Metadata, options: CallOptions) => ClientDuplexStream<CallEnvelope<unknown>, AnswerEnvelope<unknown>>;
  const callStreams: StreamedCalls[] = [];
  const methods: Record<string, unknown> = {
    isConnected: followConnectivity(client.getChannel()),
    close: () => {
      for (const streamed of callStreams) streamed.close();
      client.close();
    },
  };
  for (const name of Object.keys(definition)) {
    const invoke = (client as unknown as Record<string, UnaryMethod>)[name];
    if (!invoke) throw new Error(`client for ${serviceName} lacks method ${name}`);
    const method = definition[name];
    if (method?.requestStream) {
      const open = invoke as unknown as CallStreamMethod;
      const streamed = callOverStreams(() => open.call(client, new Metadata(), {}), { serviceName, path: method.path, address, deadlineMs, outages });
      callStreams.push(streamed);
      methods[name] = streamed.call;
      continue;
    }
    if (method?.responseStream) {
      const open = invoke as unknown as StreamMethod;
      methods[name] = (request: unknown, settings: StreamSettings = {}) =>
        readStream(() => open.call(client, request, settings.metadata ?? new Metadata(), {}), serviceName, settings.signal);
      continue;
    }
    const path = method?.path ?? `/${serviceName}/${name}`;
    const calls: ClientMethod = { serviceName, spans: callSpans(path, address), timer: callTimer('client', path), outages };
    methods[name] = (request: unknown, settings: CallSettings = {}) =>
      new Promise((resolve, reject) => {
        const options: CallOptions = { deadline: Date.now() + (settings.deadlineMs ?? deadlineMs) };
        const metadata = settings.metadata ?? new Metadata();
        const done: UnaryCallback = startClientCall(calls, metadata, resolve, reject);
        withoutCallerStack(() => invoke.call(client, request, metadata, options, done));
      });
  }
  return methods as PromiseClient<D>;
}

/**
 * Runs `start` (a grpc-js call being made) without capturing stacks. grpc-js
 * builds an Error on every unary call to append the caller's stack to a
 * failure's: about 8 µs of CPU per call, for frames that end at this file's
 * promise (the call's service and outcome are in the DomainError it maps to).
 */
function withoutCallerStack(start: () => void): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    start();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A grpc-js response stream as an async iterable: cancelled when the caller aborts or stops reading, failures mapped. */
async function* readStream(open: () => ClientReadableStream<unknown>, serviceName: string, signal: AbortSignal | undefined): AsyncIterable<unknown> {
  if (signal?.aborted) return;
  const call = open();
  const cancel = () => call.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for await (const response of call) yield response;
  } catch (error) {
    if (signal?.aborted) return;
    throw fromGrpcError(error as ServiceError, serviceName);
  } finally {
    signal?.removeEventListener('abort', cancel);
    call.cancel();
  }
}

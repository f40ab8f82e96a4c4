import { Metadata, status as GrpcStatus, type ClientDuplexStream, type ServerDuplexStream, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import type { OutageReporter } from '../outages';
import { callTimer } from './call-metrics';
import { callSpans } from './call-spans';
import { metadataStrings, toMetadata, type CarriedMetadata } from './carried-metadata';
import type { CallSettings } from './client';
import { startClientCall, type ClientMethod } from './client-call';
import type { AnswerEnvelope, CallEnvelope, CarriedStatus } from './methods';
import type { OpenStreams } from './server';
import type { GrpcErrorPayload } from './status';

/**
 * Unary calls carried over long-lived bidirectional streams. A grpc-js unary
 * call opens and closes an HTTP/2 stream, with its headers, trailers and
 * call stack, for every call: measured on the 2-core machine at 125 calls a
 * second, 0.8 to 1.05 ms of the client's CPU and 0.44 to 0.55 ms of the
 * server's per call, against 0.37 to 0.47 and 0.18 for a message on a stream
 * already open (docs/decisions.md#records-over-a-stream). Each call keeps
 * what a unary call has: its deadline, its metadata (the trace context), its
 * client and server spans, its duration histograms and its status, mapped the
 * same way.
 *
 * The caller spreads its calls over a few streams, each opened as its own
 * call (so round robin puts them on different backends), and replaces a
 * stream after `maxStreamAgeMs`, so backends added later take their share.
 * A server that drains, or a caller that retires a stream, ends it only once
 * the calls it started are answered; the calls it had not started when the
 * stream ended cleanly are sent again, once, on another stream. A stream that
 * fails (the connection lost) fails its unanswered calls as `unavailable`:
 * as for a unary call, whether the server ran them is unknown.
 */

/** Answers a call's request the way a unary call of the same handler would: (error status, or response). */
export type ServeCall = (request: unknown, metadata: CarriedMetadata, deadline: Date | number, reply: (error: GrpcErrorPayload | null, response?: unknown) => void) => void;

function carriedStatus({ code, details, metadata }: GrpcErrorPayload): CarriedStatus {
  return { code, message: details, metadata: metadataStrings(metadata) };
}

/** Server side: every request message of a stream answered by `serve`, in whatever order the answers come. */
export function answerCalls(serve: ServeCall, open: OpenStreams) {
  return (call: ServerDuplexStream<CallEnvelope<unknown>, AnswerEnvelope<unknown>>) => {
    const draining = new AbortController();
    open.add(draining);
    let started = 0;
    let callerDone = false;
    let closed = false;
    const close = () => {
      closed = true;
      open.delete(draining);
    };
    // Ending cleanly with nothing in flight tells the caller that every call it has no answer for was never started.
    const endWhenIdle = () => {
      if (closed || started > 0 || !(callerDone || draining.signal.aborted)) return;
      close();
      call.end();
    };
    draining.signal.addEventListener('abort', endWhenIdle, { once: true });
    call.on('data', ({ callId, metadata, timeoutMs, request }: CallEnvelope<unknown>) => {
      if (closed || draining.signal.aborted) return;
      started += 1;
      serve(request, metadata, timeoutMs > 0 ? Date.now() + timeoutMs : Infinity, (error, response) => {
        started -= 1;
        if (!closed) call.write(error ? { callId, status: carriedStatus(error) } : { callId, response });
        endWhenIdle();
      });
    });
    call.on('end', () => {
      callerDone = true;
      endWhenIdle();
    });
    call.on('cancelled', close);
    call.on('error', close);
  };
}

export interface CallStreamOptions {
  serviceName: string;
  /** The method's path, for its spans and histograms. */
  path: string;
  address: string;
  deadlineMs: number;
  outages: OutageReporter | undefined;
  /** How many streams calls are spread over. */
  streams?: number;
  /** How long a stream takes new calls before it is replaced. */
  maxStreamAgeMs?: number;
}

interface PendingCall {
  envelope: CallEnvelope<unknown>;
  /** When the caller stops waiting (Date.now() time): a call sent again carries what is left of its timeout. */
  deadlineAt: number;
  /** The stream it was last sent on, which holds it until it is answered. */
  lane?: Lane;
  resolve(response: unknown): void;
  fail(error: ServiceError): void;
  sentAgain: boolean;
}

interface Lane {
  stream: ClientDuplexStream<CallEnvelope<unknown>, AnswerEnvelope<unknown>>;
  openedAt: number;
  pending: Map<number, PendingCall>;
}

const DEFAULT_STREAMS = 2;
const DEFAULT_MAX_STREAM_AGE_MS = 30_000;

function asServiceError(code: GrpcStatus, details: string, metadata: Metadata): ServiceError {
  return Object.assign(new Error(details), { code, details, metadata });
}

export interface StreamedCalls {
  /** One call, answered as a unary call is. */
  call(request: unknown, settings?: CallSettings): Promise<unknown>;
  /** Ends the streams: the server answers what it started, then ends them too. */
  close(): void;
}

/** Client side: calls made over the streams `openStream` opens. */
export function callOverStreams(
  openStream: () => ClientDuplexStream<CallEnvelope<unknown>, AnswerEnvelope<unknown>>,
  { serviceName, path, address, deadlineMs, outages, streams = DEFAULT_STREAMS, maxStreamAgeMs = DEFAULT_MAX_STREAM_AGE_MS }: CallStreamOptions,
): StreamedCalls {
  const method: ClientMethod = { serviceName, spans: callSpans(path, address), timer: callTimer('client', path), outages };
  const lanes: Array<Lane | undefined> = new Array<Lane | undefined>(streams).fill(undefined);
  let nextLane = 0;
  let nextCallId = 0;

  const settle = (lane: Lane, status: StatusObject | undefined) => {
    const index = lanes.indexOf(lane);
    if (index >= 0) lanes[index] = undefined;
    const unanswered = [...lane.pending.values()];
    lane.pending.clear();
    lane.stream.end();
    for (const call of unanswered) {
      if (status?.code === GrpcStatus.OK && !call.sentAgain) {
        call.sentAgain = true;
        send(call);
      } else {
        const code = status && status.code !== GrpcStatus.OK ? status.code : GrpcStatus.UNAVAILABLE;
        call.fail(asServiceError(code, status?.details ?? 'stream ended', status?.metadata ?? new Metadata()));
      }
    }
  };

  const open = (): Lane => {
    const lane: Lane = { stream: openStream(), openedAt: Date.now(), pending: new Map() };
    let status: StatusObject | undefined;
    lane.stream.on('data', ({ callId, response, status: failure }: AnswerEnvelope<unknown>) => {
      const call = lane.pending.get(callId);
      if (!call) return;
      lane.pending.delete(callId);
      if (failure) call.fail(asServiceError(failure.code, failure.message, toMetadata(failure.metadata)));
      else call.resolve(response);
    });
    lane.stream.on('status', (received: StatusObject) => (status = received));
    // 'status' comes before the answers still buffered are read; 'end' after them.
    lane.stream.on('end', () => settle(lane, status));
    lane.stream.on('error', () => undefined);
    return lane;
  };

  /** A lane that takes new calls: the next in turn, replaced when it has ended or grown old (it ends once its calls are answered). */
  const laneForNextCall = (): Lane => {
    const index = nextLane;
    nextLane = (nextLane + 1) % streams;
    const current = lanes[index];
    if (current && Date.now() - current.openedAt < maxStreamAgeMs) return current;
    if (current) current.stream.end();
    const lane = open();
    lanes[index] = lane;
    return lane;
  };

  const send = (call: PendingCall) => {
    const lane = laneForNextCall();
    call.lane = lane;
    lane.pending.set(call.envelope.callId, call);
    lane.stream.write({ ...call.envelope, timeoutMs: Math.max(1, call.deadlineAt - Date.now()) });
  };

  const call = (request: unknown, settings: CallSettings = {}) =>
    new Promise((resolve, reject) => {
      const timeoutMs = settings.deadlineMs ?? deadlineMs;
      // The envelope's own strings carry the trace context: no Metadata is made for it (carried-metadata.ts).
      const metadata = settings.metadata ? metadataStrings(settings.metadata) : {};
      const answered = startClientCall(method, metadata, resolve, reject);
      nextCallId = (nextCallId + 1) >>> 0;
      const envelope: CallEnvelope<unknown> = { callId: nextCallId, metadata, timeoutMs, request };
      let done = false;
      const finish = (error: ServiceError | null, response?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        pending.lane?.pending.delete(envelope.callId);
        answered(error, response);
      };
      const deadline = setTimeout(() => finish(asServiceError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded', new Metadata())), timeoutMs);
      const pending: PendingCall = { envelope, deadlineAt: Date.now() + timeoutMs, resolve: (response) => finish(null, response), fail: (error) => finish(error), sentAgain: false };
      send(pending);
    });

  const close = () => {
    for (const [index, lane] of lanes.entries()) {
      lane?.stream.end();
      lanes[index] = undefined;
    }
  };
  return { call, close };
}

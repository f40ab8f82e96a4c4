/**
 * The shape of one method in a ts-proto service definition, and the
 * request / response types it carries. Server and client both derive their
 * typed handlers from these, so the .proto file is the single source of truth.
 */
interface MethodShape {
  path: string;
  requestSerialize(value: never): Buffer;
  requestDeserialize(value: Buffer): unknown;
  responseSerialize(value: never): Buffer;
  responseDeserialize(value: Buffer): unknown;
}

export interface UnaryMethod extends MethodShape {
  requestStream: false;
  responseStream: false;
}

/** One request, then any number of responses until the server ends the stream or the caller cancels it. */
export interface ServerStreamingMethod extends MethodShape {
  requestStream: false;
  responseStream: true;
}

/**
 * Unary calls carried over long-lived bidirectional streams (call-streams.ts):
 * each request message wraps one call's request with its id, metadata and
 * timeout, each response message its answer or its status.
 */
export interface CallStreamMethod extends MethodShape {
  requestStream: true;
  responseStream: true;
  requestDeserialize(value: Buffer): CallEnvelope<unknown>;
  responseDeserialize(value: Buffer): AnswerEnvelope<unknown>;
}

/** A call's request as a call stream carries it. */
export interface CallEnvelope<Req> {
  callId: number;
  metadata: { [key: string]: string };
  timeoutMs: number;
  request?: Req | undefined;
}

/** The status a unary call ends with, as a call stream carries it. */
export interface CarriedStatus {
  code: number;
  message: string;
  metadata: { [key: string]: string };
}

/** A call's answer as a call stream carries it: the response, or the status it failed with. */
export interface AnswerEnvelope<Res> {
  callId: number;
  response?: Res | undefined;
  status?: CarriedStatus | undefined;
}

export type UnaryServiceDefinition = Record<string, UnaryMethod>;

/** A service of unary, server-streaming and call-stream methods (plain client streaming is not used here). */
export type RpcServiceDefinition = Record<string, UnaryMethod | ServerStreamingMethod | CallStreamMethod>;

/** `gateway.auth.v1.AuthService` from a definition whose methods' paths are `/gateway.auth.v1.AuthService/...`. */
export function grpcServiceName(definition: Readonly<Record<string, { path: string }>>): string {
  const path = Object.values(definition)[0]?.path ?? '';
  return path.slice(1, path.lastIndexOf('/'));
}

export type RequestOf<M> = M extends { requestDeserialize(value: Buffer): infer Req } ? Req : never;
export type ResponseOf<M> = M extends { responseDeserialize(value: Buffer): infer Res } ? Res : never;

/** The request of one call a call-stream method carries. */
export type CallRequestOf<M> = RequestOf<M> extends CallEnvelope<infer Req> ? Req : never;
/** The response of one call a call-stream method carries. */
export type CallResponseOf<M> = ResponseOf<M> extends AnswerEnvelope<infer Res> ? Res : never;

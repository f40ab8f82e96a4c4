/**
 * The shape of one method in a ts-proto service definition, and the
 * request / response types it carries. Server and client both derive their
 * typed handlers from these, so the .proto file is the single source of truth.
 */
interface MethodShape {
  path: string;
  requestStream: false;
  requestSerialize(value: never): Buffer;
  requestDeserialize(value: Buffer): unknown;
  responseSerialize(value: never): Buffer;
  responseDeserialize(value: Buffer): unknown;
}

export interface UnaryMethod extends MethodShape {
  responseStream: false;
}

/** One request, then any number of responses until the server ends the stream or the caller cancels it. */
export interface ServerStreamingMethod extends MethodShape {
  responseStream: true;
}

export type UnaryServiceDefinition = Record<string, UnaryMethod>;

/** A service of unary and server-streaming methods (client streaming is not used here). */
export type RpcServiceDefinition = Record<string, UnaryMethod | ServerStreamingMethod>;

/** `gateway.auth.v1.AuthService` from a definition whose methods' paths are `/gateway.auth.v1.AuthService/...`. */
export function grpcServiceName(definition: Readonly<Record<string, { path: string }>>): string {
  const path = Object.values(definition)[0]?.path ?? '';
  return path.slice(1, path.lastIndexOf('/'));
}

export type RequestOf<M> = M extends { requestDeserialize(value: Buffer): infer Req } ? Req : never;
export type ResponseOf<M> = M extends { responseDeserialize(value: Buffer): infer Res } ? Res : never;

/**
 * The shape of one unary method in a ts-proto service definition, and the
 * request / response types it carries. Server and client both derive their
 * typed handlers from these, so the .proto file is the single source of truth.
 */
export interface UnaryMethod {
  path: string;
  requestStream: false;
  responseStream: false;
  requestSerialize(value: never): Buffer;
  requestDeserialize(value: Buffer): unknown;
  responseSerialize(value: never): Buffer;
  responseDeserialize(value: Buffer): unknown;
}

export type UnaryServiceDefinition = Record<string, UnaryMethod>;

export type RequestOf<M> = M extends { requestDeserialize(value: Buffer): infer Req } ? Req : never;
export type ResponseOf<M> = M extends { responseDeserialize(value: Buffer): infer Res } ? Res : never;

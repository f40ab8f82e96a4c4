import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';

const bytes = (value: Buffer) => value;

/** A method whose messages are raw bytes, no serialization cost at all; `streaming` makes it bidirectional. */
export function rawBytesMethod(path: string, streaming: boolean): MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream: streaming,
    responseStream: streaming,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  };
}

/** One unary method whose messages are raw bytes. */
export const ECHO_SERVICE: ServiceDefinition = {
  echo: rawBytesMethod('/bench.floor.v1.EchoService/Echo', false),
};

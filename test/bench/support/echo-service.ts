import type { ServiceDefinition } from '@grpc/grpc-js';

const bytes = (value: Buffer) => value;

/** One unary method whose messages are raw bytes: no serialization cost at all. */
export const ECHO_SERVICE: ServiceDefinition = {
  echo: {
    path: '/bench.floor.v1.EchoService/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  },
};

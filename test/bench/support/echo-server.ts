/**
 * The least a gRPC server can be: grpc-js with bytes in and the same bytes
 * out, no protobuf, no telemetry, no logging. `npm run bench:floor` runs it
 * as its own process and prints the port it bound on stdout.
 */
import { Server, ServerCredentials, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData } from '@grpc/grpc-js';
import { ECHO_SERVICE } from './echo-service';

const server = new Server({ 'grpc.enable_channelz': 0 });
server.addService(ECHO_SERVICE as ServiceDefinition, {
  echo: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, call.request),
});
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`${port}\n`);
});

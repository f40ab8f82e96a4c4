import { join } from 'node:path';
import { credentials, loadPackageDefinition, type ClientDuplexStream, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { FileDescriptorProto } from 'protobufjs/ext/descriptor';
import { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { capturedLogger } from '../../test/support/captured-logger';
import type { UnaryServiceDefinition } from './methods';
import { grpcServiceName, serveService, type ServiceServer, type UnaryHandlers } from './server';

/**
 * Every service's server answers gRPC reflection as grpcurl asks it: the
 * service is listed, and the file that defines it names each of its methods,
 * the same ones the generated stubs call.
 */
const REFLECTION_PROTO = join(require.resolve('@grpc/reflection'), '..', '..', 'proto', 'grpc', 'reflection', 'v1', 'reflection.proto');

/** The parts of a FileDescriptorProto this test reads. */
interface FileDescriptor {
  package: string;
  service: Array<{ name: string; method: Array<{ name: string }> }>;
}

interface ReflectionResponse {
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_message: string };
}

function reflectionClient(address: string) {
  const loaded = loadPackageDefinition(loadSync(REFLECTION_PROTO, { keepCase: true })) as GrpcObject;
  const v1 = ((loaded.grpc as GrpcObject).reflection as GrpcObject).v1 as GrpcObject;
  const Client = v1.ServerReflection as ServiceClientConstructor;
  return new Client(address, credentials.createInsecure());
}

/** One request on the bidirectional reflection stream, and its answer. */
function ask(address: string, request: Record<string, string>): Promise<ReflectionResponse> {
  const client = reflectionClient(address);
  const stream = (client as unknown as { ServerReflectionInfo(): ClientDuplexStream<unknown, ReflectionResponse> }).ServerReflectionInfo();
  return new Promise((resolve, reject) => {
    stream.once('data', (response: ReflectionResponse) => {
      stream.end();
      client.close();
      resolve(response);
    });
    stream.once('error', reject);
    stream.write(request);
  });
}

function failingHandlers<D extends UnaryServiceDefinition>(definition: D): UnaryHandlers<D> {
  const handlers: Record<string, () => Promise<never>> = {};
  for (const name of Object.keys(definition)) handlers[name] = () => Promise.reject(new Error('not served in this test'));
  return handlers as unknown as UnaryHandlers<D>;
}

const definitions: UnaryServiceDefinition[] = [
  AuthServiceService,
  RouterServiceService,
  PricingServiceService,
  LedgerServiceService,
  UsageServiceService,
  AgentServiceService,
];

describe('gRPC server reflection', () => {
  const servers: ServiceServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.stop(100))));

  it.each(definitions.map((definition) => [grpcServiceName(definition), definition] as const))('lists the methods of %s', async (serviceName, definition) => {
    const server = await serveService({
      definition,
      handlers: failingHandlers(definition),
      dependencyChecks: [],
      listen: { host: '127.0.0.1', port: 0 },
      logger: capturedLogger().logger,
    });
    servers.push(server);
    const address = `127.0.0.1:${server.grpc.port}`;

    const listed = await ask(address, { list_services: '' });
    expect(listed.list_services_response?.service.map(({ name }) => name)).toContain(serviceName);

    const file = await ask(address, { file_containing_symbol: serviceName });
    const descriptors = (file.file_descriptor_response?.file_descriptor_proto ?? []).map((bytes) => FileDescriptorProto.decode(bytes) as unknown as FileDescriptor);
    const service = descriptors
      .flatMap((descriptor) => descriptor.service.map((each) => ({ name: `${descriptor.package}.${each.name}`, methods: each.method.map(({ name }) => name) })))
      .find(({ name }) => name === serviceName);
    const stubMethods = Object.values(definition).map(({ path }) => path.slice(path.lastIndexOf('/') + 1));
    expect(service?.methods.sort()).toEqual(stubMethods.sort());
  });
});

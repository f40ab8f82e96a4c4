import { dirname, join } from 'node:path';
import { credentials, loadPackageDefinition, type ClientDuplexStream, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

interface ReflectionRequest {
  list_services?: string;
  file_containing_symbol?: string;
}
interface ReflectionResponse {
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

/** grpc.reflection.v1, from the proto file @grpc/reflection ships: the client grpcurl is to the server. */
function reflectionClientConstructor(): ServiceClientConstructor {
  const protoDir = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto');
  const definition = loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [protoDir], keepCase: true });
  const reflection = (loadPackageDefinition(definition).grpc as GrpcObject).reflection as GrpcObject;
  return (reflection.v1 as GrpcObject).ServerReflection as ServiceClientConstructor;
}

/** One request on the server's reflection stream, and its one response. */
function ask(stream: ClientDuplexStream<ReflectionRequest, ReflectionResponse>, request: ReflectionRequest): Promise<ReflectionResponse> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    stream.once('error', onError);
    stream.once('data', (response: ReflectionResponse) => {
      stream.off('error', onError);
      if (response.error_response) reject(new Error(response.error_response.error_message));
      else resolve(response);
    });
    stream.write(request);
  });
}

/**
 * What a server says of itself through reflection: each service it lists,
 * with the methods of that service's descriptor.
 */
export async function reflectServices(address: string): Promise<Record<string, string[]>> {
  const Client = reflectionClientConstructor();
  const client = new Client(address, credentials.createInsecure());
  const stream = client.makeBidiStreamRequest(
    '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
    (message: ReflectionRequest) => Buffer.from(Client.service.ServerReflectionInfo!.requestSerialize(message)),
    (bytes: Buffer) => Client.service.ServerReflectionInfo!.responseDeserialize(bytes) as ReflectionResponse,
  ) as ClientDuplexStream<ReflectionRequest, ReflectionResponse>;
  try {
    const listed = await ask(stream, { list_services: '*' });
    const services: Record<string, string[]> = {};
    for (const { name } of listed.list_services_response?.service ?? []) {
      const found = await ask(stream, { file_containing_symbol: name });
      const files = (found.file_descriptor_response?.file_descriptor_proto ?? []).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
      const shortName = name.slice(name.lastIndexOf('.') + 1);
      const descriptor = files.flatMap((file) => file.service.filter((service) => `${file.package}.${service.name}` === name || service.name === shortName))[0];
      services[name] = (descriptor?.method ?? []).map((method) => method.name);
    }
    return services;
  } finally {
    stream.end();
    client.close();
  }
}

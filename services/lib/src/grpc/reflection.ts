import type { Server, ServiceDefinition } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer, loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { FILE_DESCRIPTOR_SET_BASE64 } from '@gateway/proto/gen/descriptor-set';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { grpcServiceName } from './methods';

/** The health service every server registers (lib's health monitor). */
const HEALTH_SERVICE = 'grpc.health.v1.Health';

let described: PackageDefinition | undefined;

/** Every contract (proto/gen/descriptor-set.ts) and grpc.health.v1, parsed once per process. */
function describedServices(): PackageDefinition {
  described ??= {
    ...loadFileDescriptorSetFromBuffer(Buffer.from(FILE_DESCRIPTOR_SET_BASE64, 'base64')),
    ...loadSync(healthProtoPath),
  };
  return described;
}

/**
 * gRPC server reflection (v1 and v1alpha), so that grpcurl, Postman and
 * other tools list a server's services and methods and call them without
 * the .proto files. It describes exactly the services this server runs.
 */
export function addReflection(server: Pick<Server, 'addService'>, services: ServiceDefinition[]): void {
  const names = [...services.map(grpcServiceName), HEALTH_SERVICE];
  new ReflectionService(describedServices(), { services: names }).addToServer(server);
}

import { join } from 'node:path';
import type { Server } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha), so that grpcurl,
 * Postman and the like list a service's methods and call them without the
 * .proto files at hand. The descriptors come from the contract's own .proto
 * files, read at start: the same ones the stubs are generated from. Images
 * ship them (deploy/build.ts, RUNTIME_FILES).
 */
export const PROTO_ROOT = join(__dirname, '..', '..', '..', '..', 'proto');

/** `gateway/auth/v1/auth.proto` for `gateway.auth.v1.AuthService`: one file per service, named after its package. */
export function protoFileOf(serviceName: string): string {
  const packageParts = serviceName.split('.').slice(0, -1);
  const [, service] = packageParts;
  if (packageParts.length !== 3 || service === undefined) throw new Error(`not a gateway.<svc>.v1 service: ${serviceName}`);
  return `${packageParts.join('/')}/${service}.proto`;
}

export function addReflection(server: Pick<Server, 'addService'>, serviceName: string): void {
  const definition = loadSync(protoFileOf(serviceName), { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true });
  new ReflectionService(definition, { services: [serviceName] }).addToServer(server);
}

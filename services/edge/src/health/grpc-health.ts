/** Edge's /readyz asks the backends through the shared probe (also used by the agent's status). */
export { grpcHealthProbe, type GrpcHealthProbe, type ReadinessProbe } from '@gateway/lib/grpc';

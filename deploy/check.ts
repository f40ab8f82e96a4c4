import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { agentConfigShape } from '@gateway/agent/config';
import { authConfigShape } from '@gateway/auth/config';
import { edgeConfigShape } from '@gateway/edge/config';
import { UPSTREAM_BASE_URL } from '@gateway/edge/provider';
import { parseCatalog } from '@gateway/lib/catalog';
import { ConfigError, loadConfig } from '@gateway/lib/config';
import { ledgerConfigShape } from '@gateway/ledger/config';
import { pricingConfigShape } from '@gateway/pricing/config';
import { routerConfigShape } from '@gateway/router/config';
import { usageConfigShape } from '@gateway/usage/config';
import { parseAllDocuments } from 'yaml';
import { compiledEntry, ENTRY_POINTS } from './build';
import { defaultOf, dockerfile } from './dockerfiles';
import { z } from 'zod';

/**
 * Checks deploy/ against the code it deploys, without a cluster or kustomize:
 * every manifest parses, each Deployment gives its service every variable its
 * zod config requires (with values that config accepts), the catalog copy
 * matches the shipped catalog, ports, probes, images, migrations and pod
 * security agree with the service, and deploy/README.md lists exactly the
 * Secret keys the manifests read.
 */

interface ServiceSpec {
  /** The zod shape the service reads its environment through. */
  shape: z.ZodRawShape;
  protocol: 'grpc' | 'http';
  /** Owns a schema: an init container runs the service's own migrate command first. */
  migrates: boolean;
  /** Calls the model providers with the managed keys the catalog names. */
  callsProviders: boolean;
}

/** Every service deploy/base runs, by Deployment name. */
export const SERVICES: Readonly<Record<string, ServiceSpec>> = {
  auth: { shape: authConfigShape, protocol: 'grpc', migrates: true, callsProviders: false },
  router: { shape: routerConfigShape, protocol: 'grpc', migrates: false, callsProviders: false },
  pricing: { shape: pricingConfigShape, protocol: 'grpc', migrates: false, callsProviders: false },
  ledger: { shape: ledgerConfigShape, protocol: 'grpc', migrates: true, callsProviders: false },
  usage: { shape: usageConfigShape, protocol: 'grpc', migrates: false, callsProviders: false },
  edge: { shape: edgeConfigShape, protocol: 'http', migrates: false, callsProviders: true },
  agent: { shape: agentConfigShape, protocol: 'grpc', migrates: true, callsProviders: false },
};

export const SECRET_NAME = 'gateway-secrets';
const CATALOG_CONFIGMAP = 'catalog';
const CATALOG_FILE = 'catalog.json';
const BASE = 'deploy/base';
const CATALOG_COPY = `${BASE}/${CATALOG_FILE}`;
const CATALOG_SOURCE = 'services/lib/catalog/catalog.json';
const README = 'deploy/README.md';
/** Providers that exist only in development (the built-in simulator): the base gives them no key. */
const DEVELOPMENT_PROVIDERS = new Set(['simulator']);
/** Read by the OpenTelemetry SDK (services/lib/src/telemetry.ts), not by a service's zod config. */
const TELEMETRY_PREFIX = 'OTEL_';
/** Base URL overrides edge reads for the catalog's providers (services/edge/src/provider/upstreams.ts). */
const isProviderBaseUrl = (name: string) => name === UPSTREAM_BASE_URL || name.startsWith('PROVIDER_BASE_URL_');
/** Addresses a pod is reachable on from other pods. */
const ALL_INTERFACES = new Set(['0.0.0.0', '::']);

/** A value of the right form for each Secret key, to run the services' configs over the manifests. */
export const SAMPLE_SECRET_VALUES: Readonly<Record<string, string>> = {
  DATABASE_URL: 'postgres://gateway:password@postgres:5432/gateway',
  USAGE_DATABASE_URL: 'postgres://gateway_usage:password@postgres:5432/gateway',
  REDIS_URL: 'redis://redis:6379',
  ACCESS_TOKEN_SECRET: 'a'.repeat(48),
  SECRETS_KEY: '0f'.repeat(32),
  AGENT_PLATFORM_SECRET: `pas_${'0a'.repeat(24)}`,
  SKILL_CREDENTIALS_KEY: '1e'.repeat(32),
};
const SAMPLE_PROVIDER_KEY = 'sample-provider-key';

const labels = z.record(z.string(), z.string());
const metadata = z.object({ name: z.string().min(1), labels: labels.optional() });
const portRef = z.union([z.string().min(1), z.number().int()]);

const configMapSchema = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('ConfigMap'),
  metadata,
  // Kubernetes accepts only strings here: an unquoted number or boolean is rejected at apply time.
  data: z.record(z.string(), z.string()),
});

const serviceSchema = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('Service'),
  metadata,
  spec: z.object({
    selector: labels,
    clusterIP: z.string().optional(),
    ports: z.array(z.object({ name: z.string(), port: z.number().int(), targetPort: portRef, appProtocol: z.string().optional() })).min(1),
  }),
});

const probeSchema = z.object({
  grpc: z.object({ port: z.number().int(), service: z.string().optional() }).optional(),
  httpGet: z.object({ path: z.string(), port: portRef }).optional(),
  tcpSocket: z.object({ port: portRef }).optional(),
});

const envVarSchema = z.object({
  name: z.string().min(1),
  value: z.string().optional(),
  valueFrom: z
    .object({
      secretKeyRef: z.object({ name: z.string(), key: z.string(), optional: z.boolean().optional() }),
    })
    .optional(),
});

const cpuAndMemory = z.object({ cpu: z.union([z.string(), z.number()]), memory: z.string() });

const containerSchema = z.object({
  name: z.string().min(1),
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  ports: z.array(z.object({ name: z.string().optional(), containerPort: z.number().int() })).default([]),
  env: z.array(envVarSchema).default([]),
  envFrom: z.array(z.object({ configMapRef: z.object({ name: z.string() }) })).default([]),
  startupProbe: probeSchema.optional(),
  readinessProbe: probeSchema.optional(),
  livenessProbe: probeSchema.optional(),
  resources: z.object({ requests: cpuAndMemory, limits: cpuAndMemory }),
  securityContext: z.object({
    allowPrivilegeEscalation: z.literal(false),
    readOnlyRootFilesystem: z.literal(true),
    capabilities: z.object({ drop: z.array(z.string()).refine((drop) => drop.includes('ALL'), 'must drop ALL') }),
  }),
  volumeMounts: z.array(z.object({ name: z.string(), mountPath: z.string(), readOnly: z.boolean().optional() })).default([]),
});
type Container = z.infer<typeof containerSchema>;

const deploymentSchema = z.object({
  apiVersion: z.literal('apps/v1'),
  kind: z.literal('Deployment'),
  metadata,
  spec: z.object({
    replicas: z.number().int().min(1),
    selector: z.object({ matchLabels: labels }),
    template: z.object({
      metadata: z.object({ labels, annotations: z.record(z.string(), z.string()).default({}) }),
      spec: z.object({
        automountServiceAccountToken: z.literal(false),
        securityContext: z.object({
          runAsNonRoot: z.literal(true),
          runAsUser: z.number().int().positive(),
          seccompProfile: z.object({ type: z.literal('RuntimeDefault') }),
        }),
        initContainers: z.array(containerSchema).default([]),
        containers: z.array(containerSchema).length(1),
        volumes: z
          .array(
            z.object({
              name: z.string(),
              emptyDir: z.object({ sizeLimit: z.string().optional() }).optional(),
              configMap: z.object({ name: z.string() }).optional(),
            }),
          )
          .default([]),
      }),
    }),
  }),
});
type Deployment = z.infer<typeof deploymentSchema>;

const manifestSchema = z.discriminatedUnion('kind', [configMapSchema, serviceSchema, deploymentSchema]);
type Manifest = z.infer<typeof manifestSchema>;

const kustomizationSchema = z.object({
  resources: z.array(z.string()).min(1),
  configMapGenerator: z.array(z.object({ name: z.string(), files: z.array(z.string()).min(1) })).default([]),
  images: z.array(z.object({ name: z.string(), newName: z.string().optional(), newTag: z.string().optional() })).default([]),
});

/** The files the check reads, by path relative to the repository root. */
export type DeployFiles = Map<string, string>;

function listFiles(root: string, directory: string): string[] {
  return readdirSync(join(root, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(directory, entry.name);
    return entry.isDirectory() ? listFiles(root, path) : [path];
  });
}

export function readDeployFiles(root: string): DeployFiles {
  const paths = [
    ...listFiles(root, 'deploy').filter((path) => /\.(ya?ml|json|md)$/.test(path)),
    CATALOG_SOURCE,
    ...Object.keys(ENTRY_POINTS).map((service) => `services/${service}/Dockerfile`),
  ];
  return new Map(
    paths.filter((path) => existsSync(join(root, path))).map((path) => [path, readFileSync(join(root, path), 'utf8')]),
  );
}

function issues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** Every YAML document of a file, as plain data; parse errors become problems. */
function parseYaml(path: string, text: string, problems: string[]): unknown[] {
  return parseAllDocuments(text).flatMap((document) => {
    const errors = [...document.errors, ...document.warnings];
    problems.push(...errors.map((error) => `${path}: ${error.message.split('\n')[0]}`));
    return errors.length === 0 ? [document.toJS() as unknown] : [];
  });
}

/** "Kind name" of a document that failed its schema, as far as it has them. */
function identify(document: unknown): string {
  const parsed = z
    .object({ kind: z.string().optional(), metadata: z.object({ name: z.string().optional() }).optional() })
    .safeParse(document);
  return parsed.success ? `${parsed.data.kind ?? '(no kind)'} ${parsed.data.metadata?.name ?? '(no name)'}` : 'a document that is not a mapping';
}

interface Located<T> {
  file: string;
  object: T;
}

/** Every YAML file under deploy/, parsed; a file that does not parse is a problem and has no documents. */
function parseDeployYaml(files: DeployFiles, problems: string[]): Map<string, unknown[]> {
  const parsed = new Map<string, unknown[]>();
  for (const [path, text] of files) {
    if (path.startsWith('deploy/') && /\.ya?ml$/.test(path)) parsed.set(path, parseYaml(path, text, problems));
  }
  return parsed;
}

/** What kustomize would render, minus hashes and labels: the resources' objects and the generated ConfigMaps. */
function renderBase(yaml: Map<string, unknown[]>, files: DeployFiles, problems: string[]) {
  const kustomizationPath = `${BASE}/kustomization.yaml`;
  const kustomizationDocuments = yaml.get(kustomizationPath);
  if (kustomizationDocuments === undefined) {
    problems.push(`${kustomizationPath}: missing`);
    return undefined;
  }
  const parsed = kustomizationSchema.safeParse(kustomizationDocuments[0]);
  if (!parsed.success) {
    problems.push(...issues(parsed.error).map((issue) => `${kustomizationPath}: ${issue}`));
    return undefined;
  }
  const kustomization = parsed.data;
  const manifests: Located<Manifest>[] = [];
  for (const resource of kustomization.resources) {
    const file = posix.join(BASE, resource);
    const documents = yaml.get(file);
    if (documents === undefined) {
      problems.push(`${kustomizationPath}: resource ${resource} does not exist`);
      continue;
    }
    for (const document of documents) {
      const manifest = manifestSchema.safeParse(document);
      if (manifest.success) {
        manifests.push({ file, object: manifest.data });
        continue;
      }
      problems.push(...issues(manifest.error).map((issue) => `${file}: ${identify(document)}: ${issue}`));
    }
  }
  for (const generator of kustomization.configMapGenerator) {
    const data: Record<string, string> = {};
    for (const entry of generator.files) {
      const content = files.get(posix.join(BASE, entry));
      if (content === undefined) problems.push(`${kustomizationPath}: configMapGenerator ${generator.name}: ${entry} does not exist`);
      else data[posix.basename(entry)] = content;
    }
    manifests.push({ file: kustomizationPath, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data } });
  }
  const seen = new Set<string>();
  for (const { file, object } of manifests) {
    const id = `${object.kind} ${object.metadata.name}`;
    if (seen.has(id)) problems.push(`${file}: ${id} is defined twice`);
    seen.add(id);
  }
  return { kustomization, manifests };
}

type Rendered = NonNullable<ReturnType<typeof renderBase>>;

function find<K extends Manifest['kind']>(rendered: Rendered, kind: K, name: string): Located<Extract<Manifest, { kind: K }>> | undefined {
  return rendered.manifests.find(
    (manifest): manifest is Located<Extract<Manifest, { kind: K }>> => manifest.object.kind === kind && manifest.object.metadata.name === name,
  );
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** One service's Deployment under check, with what every check of it needs. */
interface Checked {
  service: string;
  spec: ServiceSpec;
  deployment: Deployment;
  /** "file: Deployment name", the start of each of its problems. */
  where: string;
  rendered: Rendered;
  problems: string[];
}

interface EnvVariable {
  value: string | undefined;
  /** The Secret key it comes from, if it does. */
  secretKey?: string;
  /** A Secret reference the pod starts without. */
  optional: boolean;
}

/** A container's environment as Kubernetes assembles it: envFrom ConfigMaps, then env. */
function containerEnvironment(container: Container, { rendered, where, problems }: Checked): Map<string, EnvVariable> {
  const variables = new Map<string, EnvVariable>();
  const add = (name: string, variable: EnvVariable) => {
    if (variables.has(name)) problems.push(`${where}: container ${container.name} sets ${name} twice`);
    variables.set(name, variable);
  };
  for (const { configMapRef } of container.envFrom) {
    const configMap = find(rendered, 'ConfigMap', configMapRef.name);
    if (!configMap) problems.push(`${where}: container ${container.name} reads ConfigMap ${configMapRef.name}, which does not exist`);
    for (const [name, value] of Object.entries(configMap?.object.data ?? {})) add(name, { value, optional: false });
  }
  for (const { name, value, valueFrom } of container.env) {
    const ref = valueFrom?.secretKeyRef;
    if (!ref) {
      add(name, { value, optional: false });
      continue;
    }
    if (ref.name !== SECRET_NAME) problems.push(`${where}: ${name} reads Secret ${ref.name}, not ${SECRET_NAME}`);
    add(name, { value: SAMPLE_SECRET_VALUES[ref.key] ?? SAMPLE_PROVIDER_KEY, secretKey: ref.key, optional: ref.optional === true });
  }
  return variables;
}

function allContainers(deployment: Deployment): Container[] {
  const pod = deployment.spec.template.spec;
  return [...pod.initContainers, ...pod.containers];
}

/** Volumes, mounts and labels (the security settings are part of the Deployment schema). */
function checkPod({ deployment, rendered, where, problems }: Checked): void {
  const volumes = new Map(deployment.spec.template.spec.volumes.map((volume) => [volume.name, volume]));
  for (const { name, configMap } of volumes.values()) {
    if (configMap && !find(rendered, 'ConfigMap', configMap.name)) problems.push(`${where}: volume ${name} is ConfigMap ${configMap.name}, which does not exist`);
  }
  for (const container of allContainers(deployment)) {
    for (const mount of container.volumeMounts) {
      if (!volumes.has(mount.name)) problems.push(`${where}: container ${container.name} mounts volume ${mount.name}, which the pod does not have`);
    }
  }
  if (!selects(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)) problems.push(`${where}: its selector does not match its pod labels`);
}

/** The command of a container and its arguments, as the image runs them. */
function commandLine(container: Container): string {
  return [...(container.command ?? []), ...(container.args ?? [])].join(' ');
}

function checkImagesAndCommands(checked: Checked, root: string): void {
  const { service, spec, deployment, rendered, where, problems } = checked;
  const image = `gateway/${service}`;
  if (!rendered.kustomization.images.some((entry) => entry.name === image)) problems.push(`${BASE}/kustomization.yaml: images has no entry for ${image}`);
  for (const container of allContainers(deployment)) {
    if (container.image !== image) problems.push(`${where}: container ${container.name} runs ${container.image}, not ${image}`);
    // An image holds its own service's bundles only, each built from an entry point.
    for (const argument of commandLine(container).split(' ')) {
      const bundle = /^services\/([^/]+)\/dist\/([^/]+)\.js$/.exec(argument);
      if (!bundle) continue;
      const [, directory = '', name = ''] = bundle;
      if (directory !== service) problems.push(`${where}: container ${container.name} runs ${argument}, which is not in ${image}`);
      const source = ENTRY_POINTS[directory]?.[name];
      if (source === undefined || !existsSync(join(root, 'services', directory, source))) problems.push(`${where}: container ${container.name} runs ${argument}, which no entry point of deploy/build.ts builds`);
    }
  }
  const { initContainers } = deployment.spec.template.spec;
  if (!spec.migrates) {
    if (initContainers.length > 0) problems.push(`${where}: ${service} owns no schema, yet has init containers`);
    return;
  }
  const migrate = `node ${compiledEntry(service, 'migrate')}`;
  const [init] = initContainers;
  if (initContainers.length !== 1 || !init || commandLine(init) !== migrate) {
    problems.push(`${where}: needs exactly one init container, running \`${migrate}\``);
    return;
  }
  if (containerEnvironment(init, checked).get('DATABASE_URL')?.secretKey !== 'DATABASE_URL') {
    problems.push(`${where}: init container ${init.name} needs DATABASE_URL from the Secret`);
  }
}

/** Each Dockerfile is the template's (deploy/dockerfiles.ts), which exposes the port the manifest gives the service. */
function checkDockerfile(service: string, ports: ServicePorts, files: DeployFiles, problems: string[]): void {
  const path = `services/${service}/Dockerfile`;
  const text = files.get(path);
  if (text === undefined) {
    problems.push(`${path}: missing; run npx tsx deploy/dockerfiles.ts`);
    return;
  }
  const expected = dockerfile(service);
  if (text !== expected) problems.push(`${path}: differs from what deploy/dockerfiles.ts writes for it; run npx tsx deploy/dockerfiles.ts (edit the template there)`);
  if (!expected.includes(`\nEXPOSE ${ports.port} ${ports.metricsPort}\n`)) {
    problems.push(`${path}: the image exposes ${String(defaultOf(service, 'PORT'))} ${String(defaultOf(service, 'METRICS_PORT'))}, its config's defaults, but its manifest sets ${ports.port} ${ports.metricsPort}`);
  }
}

/** Prometheus finds the metrics port through the pod's annotations; the container names it. */
function checkMetricsPort({ deployment, where, problems }: Checked, container: Container, metricsPort: number): void {
  if (!container.ports.some((entry) => entry.name === 'metrics' && entry.containerPort === metricsPort)) {
    problems.push(`${where}: no container port named metrics on ${metricsPort} (its METRICS_PORT)`);
  }
  const { annotations } = deployment.spec.template.metadata;
  const expected = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(metricsPort), 'prometheus.io/path': '/metrics' };
  for (const [key, value] of Object.entries(expected)) {
    if (annotations[key] !== value) problems.push(`${where}: pod annotation ${key} should be "${value}"`);
  }
}

function checkPortsAndProbes(checked: Checked, container: Container, port: number): void {
  const { service, spec, deployment, rendered, where, problems } = checked;
  const containerPort = container.ports.find((entry) => entry.containerPort === port);
  if (!containerPort?.name) {
    problems.push(`${where}: no named container port ${port} (the port its config listens on)`);
    return;
  }
  const isPort = (ref: string | number) => ref === port || ref === containerPort.name;
  const kubeService = find(rendered, 'Service', service);
  if (kubeService) {
    const serviceWhere = `${kubeService.file}: Service ${service}`;
    for (const entry of kubeService.object.spec.ports) {
      if (!isPort(entry.targetPort)) problems.push(`${serviceWhere}: port ${entry.name} targets ${entry.targetPort}, not the container's ${port}`);
      if (entry.appProtocol !== spec.protocol) problems.push(`${serviceWhere}: port ${entry.name} should declare appProtocol ${spec.protocol}`);
    }
    if (!selects(kubeService.object.spec.selector, deployment.spec.template.metadata.labels)) problems.push(`${serviceWhere}: its selector does not match the pods of Deployment ${service}`);
  } else {
    problems.push(`${where}: no Service ${service}`);
  }
  const { startupProbe, readinessProbe, livenessProbe } = container;
  if (!readinessProbe || !livenessProbe) problems.push(`${where}: needs a readiness and a liveness probe`);
  if (spec.protocol === 'grpc') {
    // grpc.health.v1 reflects the service's dependencies: it gates start and readiness.
    for (const [name, probe] of [['startupProbe', startupProbe], ['readinessProbe', readinessProbe]] as const) {
      if (probe?.grpc?.port !== port) problems.push(`${where}: ${name} should be a gRPC probe on port ${port}`);
    }
    return;
  }
  for (const [name, probe, path] of [['readinessProbe', readinessProbe, '/readyz'], ['livenessProbe', livenessProbe, '/healthz']] as const) {
    if (probe?.httpGet?.path !== path || !isPort(probe.httpGet.port)) problems.push(`${where}: ${name} should GET ${path} on port ${port}`);
  }
}

function checkCatalogMount({ deployment, rendered, where, problems }: Checked, container: Container, catalogPath: string | undefined): void {
  if (catalogPath === undefined) {
    problems.push(`${where}: CATALOG_PATH is not set, so the service reads the catalog built into its image, not the ${CATALOG_CONFIGMAP} ConfigMap`);
    return;
  }
  const volumes = new Map(deployment.spec.template.spec.volumes.map((volume) => [volume.name, volume]));
  const mount = container.volumeMounts.find((entry) => volumes.get(entry.name)?.configMap?.name === CATALOG_CONFIGMAP);
  if (!mount) {
    problems.push(`${where}: does not mount the ${CATALOG_CONFIGMAP} ConfigMap`);
    return;
  }
  if (mount.readOnly !== true) problems.push(`${where}: mounts the ${CATALOG_CONFIGMAP} ConfigMap writable`);
  const keys = Object.keys(find(rendered, 'ConfigMap', CATALOG_CONFIGMAP)?.object.data ?? {});
  if (!keys.some((key) => posix.join(mount.mountPath, key) === catalogPath)) {
    problems.push(`${where}: CATALOG_PATH ${catalogPath} is not a file of the ${CATALOG_CONFIGMAP} ConfigMap mounted at ${mount.mountPath} (${keys.join(', ')})`);
  }
}

/** The managed provider key variables of the catalog that ships (the copy under deploy/base). */
function managedProviderKeys(files: DeployFiles, problems: string[]): Set<string> {
  const copy = files.get(CATALOG_COPY);
  if (copy === undefined) {
    problems.push(`${CATALOG_COPY}: missing; cp ${CATALOG_SOURCE} ${CATALOG_COPY}`);
    return new Set();
  }
  if (copy !== files.get(CATALOG_SOURCE)) problems.push(`${CATALOG_COPY}: differs from ${CATALOG_SOURCE}; copy it again: cp ${CATALOG_SOURCE} ${CATALOG_COPY}`);
  try {
    const { providers } = parseCatalog(JSON.parse(copy), CATALOG_COPY);
    return new Set(
      Object.entries(providers)
        .filter(([provider]) => !DEVELOPMENT_PROVIDERS.has(provider))
        .map(([, { api_key_env }]) => api_key_env),
    );
  } catch (error) {
    problems.push(`${CATALOG_COPY}: ${error instanceof Error ? error.message : String(error)}`);
    return new Set();
  }
}

/**
 * Runs the service's zod config over the environment its container gets, with
 * every optional Secret key absent; returns the port it listens on and its environment.
 */
interface ServicePorts {
  port: number;
  metricsPort: number;
}

function checkEnvironment(checked: Checked, container: Container, providerKeys: Set<string>): (ServicePorts & { env: Map<string, EnvVariable> }) | undefined {
  const { service, spec, where, problems } = checked;
  const env = containerEnvironment(container, checked);
  for (const name of env.keys()) {
    const known = name in spec.shape || name.startsWith(TELEMETRY_PREFIX) || (spec.callsProviders && (providerKeys.has(name) || isProviderBaseUrl(name)));
    if (!known) problems.push(`${where}: ${name} is not a variable ${service} reads`);
  }
  const present = Object.fromEntries([...env].filter(([, variable]) => !variable.optional).map(([name, variable]) => [name, variable.value]));
  let config: Record<string, unknown>;
  try {
    config = loadConfig(spec.shape, present);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems.map((problem) => `${where}: environment: ${problem}`));
    return undefined;
  }
  if (!ALL_INTERFACES.has(String(config.HOST))) problems.push(`${where}: HOST ${String(config.HOST)} is not reachable from other pods; listen on 0.0.0.0`);
  if ('CATALOG_PATH' in spec.shape) checkCatalogMount(checked, container, env.get('CATALOG_PATH')?.value);
  if (spec.callsProviders) {
    for (const key of providerKeys) {
      const variable = env.get(key);
      if (variable?.secretKey !== key || !variable.optional) {
        problems.push(`${where}: ${key} should come from Secret key ${key}, optional (a provider without its key answers 503)`);
      }
    }
  }
  return { port: Number(config.PORT), metricsPort: Number(config.METRICS_PORT), env };
}

/** host:port variables naming another service (AUTH_ADDRESS, ...) must point at its Service. */
function checkAddresses({ rendered, where, problems }: Checked, env: Map<string, EnvVariable>): void {
  for (const [name, { value }] of env) {
    const target = /^([A-Z]+)_ADDRESS$/.exec(name)?.[1]?.toLowerCase();
    if (target === undefined || !(target in SERVICES)) continue;
    const kubeService = find(rendered, 'Service', target)?.object;
    const port = kubeService?.spec.ports[0]?.port;
    if (port === undefined) problems.push(`${where}: ${name} is ${value}, but there is no Service ${target}`);
    // Every pod's address, for the client's round robin: a headless Service through the DNS resolver.
    else if (value !== `dns:///${target}:${port}`) problems.push(`${where}: ${name} is ${value}; expected dns:///${target}:${port} (Service ${target}, headless)`);
    else if (kubeService?.spec.clusterIP !== 'None') problems.push(`${where}: ${name} resolves Service ${target} by DNS, which should be headless (clusterIP: None)`);
  }
}

/** Secret key -> whether some container cannot start without it. */
function secretKeysRead(deployments: Deployment[]): Map<string, boolean> {
  const keys = new Map<string, boolean>();
  for (const container of deployments.flatMap(allContainers)) {
    for (const { valueFrom } of container.env) {
      const ref = valueFrom?.secretKeyRef;
      if (ref) keys.set(ref.key, (keys.get(ref.key) ?? false) || ref.optional !== true);
    }
  }
  return keys;
}

/** deploy/README.md's Secret table: rows `| \`KEY\` | yes/no | ...`, by key, true when required. */
function documentedSecretKeys(files: DeployFiles, problems: string[]): Map<string, boolean> {
  const readme = files.get(README);
  if (readme === undefined) {
    problems.push(`${README}: missing`);
    return new Map();
  }
  if (!readme.includes(SECRET_NAME)) problems.push(`${README}: does not name the Secret ${SECRET_NAME}`);
  const rows = [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (yes|no) \|/gm)];
  return new Map(rows.map(([, key, required]) => [key as string, required === 'yes']));
}

function checkSecret(read: Map<string, boolean>, providerKeys: Set<string>, files: DeployFiles, problems: string[]): void {
  const documented = documentedSecretKeys(files, problems);
  for (const [key, required] of read) {
    if (!(key in SAMPLE_SECRET_VALUES) && !providerKeys.has(key)) problems.push(`deploy/check.ts: no sample value for Secret key ${key}; add one to SAMPLE_SECRET_VALUES`);
    const listed = documented.get(key);
    if (listed === undefined) problems.push(`${README}: the Secret table does not list ${key}, which the manifests read`);
    else if (listed !== required) problems.push(`${README}: the Secret table says ${key} is ${listed ? '' : 'not '}required; the manifests ${required ? 'require' : 'do not require'} it`);
  }
  for (const key of documented.keys()) {
    if (!read.has(key)) problems.push(`${README}: the Secret table lists ${key}, which no manifest reads`);
  }
}

/** Every problem found, one line each, naming the file and object; empty when deploy/ is consistent. */
export function checkDeploy(files: DeployFiles, root: string): string[] {
  const problems: string[] = [];
  const rendered = renderBase(parseDeployYaml(files, problems), files, problems);
  if (!rendered) return problems;
  const providerKeys = managedProviderKeys(files, problems);
  const deployments = rendered.manifests.filter((manifest): manifest is Located<Deployment> => manifest.object.kind === 'Deployment');
  for (const { file, object } of deployments) {
    if (!(object.metadata.name in SERVICES)) problems.push(`${file}: Deployment ${object.metadata.name} is not a service of the base (${Object.keys(SERVICES).join(', ')})`);
  }
  for (const [service, spec] of Object.entries(SERVICES)) {
    const located = deployments.find(({ object }) => object.metadata.name === service);
    if (!located) {
      problems.push(`${BASE}: no Deployment ${service}`);
      continue;
    }
    const checked: Checked = { service, spec, deployment: located.object, where: `${located.file}: Deployment ${service}`, rendered, problems };
    checkPod(checked);
    checkImagesAndCommands(checked, root);
    const [container] = located.object.spec.template.spec.containers;
    if (container?.name !== service) {
      problems.push(`${checked.where}: its container should be named ${service}`);
      continue;
    }
    const environment = checkEnvironment(checked, container, providerKeys);
    if (!environment) continue;
    checkPortsAndProbes(checked, container, environment.port);
    checkMetricsPort(checked, container, environment.metricsPort);
    checkAddresses(checked, environment.env);
    checkDockerfile(service, environment, files, problems);
  }
  // The images the base does not run (the development simulator) are the template's too.
  for (const service of Object.keys(ENTRY_POINTS).filter((name) => !(name in SERVICES))) {
    const path = `services/${service}/Dockerfile`;
    if (files.get(path) !== dockerfile(service)) problems.push(`${path}: differs from what deploy/dockerfiles.ts writes for it; run npx tsx deploy/dockerfiles.ts (edit the template there)`);
  }
  checkSecret(secretKeysRead(deployments.map(({ object }) => object)), providerKeys, files, problems);
  return problems;
}

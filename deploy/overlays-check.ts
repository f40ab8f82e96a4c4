import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { ConfigError, loadConfig } from '@gateway/lib/config';
import { CLOSE_MARGIN_MS } from '@gateway/lib/lifecycle';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { PASSWORD_GRANT_DEADLINE_MS } from '@gateway/edge/config';
import { simulatorConfigShape } from '@gateway/simulator/config';
import { SAMPLE_SECRET_VALUES, SERVICES } from './check';

/**
 * Checks what a cluster would get, with no cluster: every overlay is
 * rendered by `kubectl kustomize` (also with each optional component), every
 * object is validated against the Kubernetes schemas (kubernetes-models; the
 * Gateway API and the Prometheus Operator's CRDs against their own), and
 * policies hold: probes, resources and the security context on every
 * container, a drain budget that fits the grace period, and in prod a
 * disruption budget, a NetworkPolicy, a topology spread for every
 * Deployment and an autoscaler owning its replicas where there is one.
 * Every variable a rendered container gets is accepted by its service's
 * config. skaffold.yaml's artifacts, profiles and the Dockerfiles agree.
 */

export const OVERLAYS = ['deploy/overlays/dev', 'deploy/overlays/prod'] as const;
/** Optional components, rendered on top of the overlay they are meant for. */
export const OPTIONAL_COMPONENTS: ReadonlyArray<{ overlay: string; component: string }> = [
  { overlay: 'deploy/overlays/prod', component: 'deploy/components/prometheus-operator' },
];
const PROD = 'deploy/overlays/prod';
/** The services that deploy/base runs, and the simulator of the dev overlay. */
const CONFIG_SHAPES: Readonly<Record<string, z.ZodRawShape>> = {
  ...Object.fromEntries(Object.entries(SERVICES).map(([name, spec]) => [name, spec.shape])),
  simulator: simulatorConfigShape,
};
const HPA_TARGETS = ['edge', 'router', 'pricing'];
const TELEMETRY_PREFIX = 'OTEL_';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** `kubectl kustomize <path>`, parsed; a clear problem when kubectl is missing or the render fails. */
export function render(root: string, path: string, problems: string[], kubectl = 'kubectl'): KubeObject[] {
  const result = spawnSync(kubectl, ['kustomize', path], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    problems.push(
      missing
        ? `${path}: kubectl is not installed; the deploy check renders every overlay with \`kubectl kustomize\` (install kubectl, which bundles kustomize)`
        : `${path}: kubectl kustomize failed to run: ${result.error.message}`,
    );
    return [];
  }
  if (result.status !== 0) {
    problems.push(`${path}: kubectl kustomize failed: ${result.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
    return [];
  }
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as KubeObject);
}

/** An overlay with an optional component added, rendered from a scratch kustomization under .tmp. */
function renderWithComponent(root: string, overlay: string, component: string, problems: string[]): KubeObject[] {
  const scratch = join(root, '.tmp', 'kustomize', posix.basename(component));
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const from = (path: string) => relative(scratch, join(root, path));
  writeFileSync(join(scratch, 'kustomization.yaml'), `resources:\n  - ${from(overlay)}\ncomponents:\n  - ${from(component)}\n`);
  return render(root, relative(root, scratch), problems);
}

type Model = new (data: unknown) => { validate(): void };

/**
 * kustomize wraps a Secret's base64 values over lines, which the API server
 * decodes (Go's base64 skips line breaks) but the schema's `byte` format
 * does not allow: validate them unwrapped.
 */
function asTheApiServerReadsIt(object: KubeObject): KubeObject {
  const data = (object as { data?: unknown }).data;
  if (object.kind !== 'Secret' || typeof data !== 'object' || data === null) return object;
  return { ...object, data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, typeof value === 'string' ? value.replace(/\n/g, '') : value])) };
}

/** The model class of an object's apiVersion and kind, from kubernetes-models or the CRDs' packages. */
function modelOf(object: KubeObject): Model | undefined {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const packageName =
    group === 'gateway.networking.k8s.io' ? '@kubernetes-models/gateway-api' : group === 'monitoring.coreos.com' ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  try {
    const loaded = require(`${packageName}/${group ? `${group}/` : ''}${version}/${object.kind}`) as Record<string, Model | undefined>;
    return loaded[object.kind];
  } catch {
    return undefined;
  }
}

function validateSchemas(where: string, objects: KubeObject[], problems: string[]): void {
  for (const object of objects) {
    const Model = modelOf(object);
    const name = `${where}: ${object.kind} ${object.metadata?.name ?? '(no name)'}`;
    if (!Model) {
      problems.push(`${name}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(asTheApiServerReadsIt(object)).validate();
    } catch (error) {
      problems.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
}

const probe = z.object({}).loose();
const container = z.object({
  name: z.string(),
  image: z.string(),
  command: z.array(z.string()).optional(),
  env: z
    .array(z.object({ name: z.string(), value: z.string().optional(), valueFrom: z.object({ secretKeyRef: z.object({ name: z.string(), key: z.string(), optional: z.boolean().optional() }).optional() }).loose().optional() }))
    .default([]),
  envFrom: z.array(z.object({ configMapRef: z.object({ name: z.string() }).optional(), secretRef: z.object({ name: z.string() }).optional() })).default([]),
  readinessProbe: probe.optional(),
  livenessProbe: probe.optional(),
  lifecycle: z.object({ preStop: z.object({ sleep: z.object({ seconds: z.number() }).optional() }).loose().optional() }).loose().optional(),
  resources: z.object({ requests: z.record(z.string(), z.unknown()).optional(), limits: z.record(z.string(), z.unknown()).optional() }).optional(),
  securityContext: z.object({ allowPrivilegeEscalation: z.boolean().optional(), readOnlyRootFilesystem: z.boolean().optional(), capabilities: z.object({ drop: z.array(z.string()).optional() }).optional() }).optional(),
});
type Container = z.infer<typeof container>;
const deployment = z.object({
  kind: z.literal('Deployment'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({
    replicas: z.number().optional(),
    selector: z.object({ matchLabels: z.record(z.string(), z.string()) }),
    template: z.object({
      metadata: z.object({ labels: z.record(z.string(), z.string()) }),
      spec: z.object({
        terminationGracePeriodSeconds: z.number().optional(),
        securityContext: z.object({ runAsNonRoot: z.boolean().optional(), seccompProfile: z.object({ type: z.string() }).optional() }).optional(),
        topologySpreadConstraints: z.array(z.object({ topologyKey: z.string() }).loose()).default([]),
        initContainers: z.array(container).default([]),
        containers: z.array(container),
      }),
    }),
  }),
});
type Deployment = z.infer<typeof deployment>;
const selectorOf = z.object({ spec: z.object({ selector: z.object({ matchLabels: z.record(z.string(), z.string()) }).optional(), podSelector: z.object({}).loose().optional() }).loose() });
const labelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(z.object({ key: z.string(), operator: z.string(), values: z.array(z.string()).default([]) })).optional(),
});

function matches(selector: z.infer<typeof labelSelector>, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values }) => (operator === 'In' ? values.includes(labels[key] ?? '') : true));
  return byLabels && byExpressions;
}

function checkContainers(where: string, pod: Deployment['spec']['template']['spec'], problems: string[]): void {
  if (pod.securityContext?.runAsNonRoot !== true || pod.securityContext.seccompProfile?.type !== 'RuntimeDefault') {
    problems.push(`${where}: the pod needs runAsNonRoot and the RuntimeDefault seccomp profile`);
  }
  for (const each of [...pod.initContainers, ...pod.containers]) {
    const context = each.securityContext;
    if (context?.allowPrivilegeEscalation !== false || context.readOnlyRootFilesystem !== true || !context.capabilities?.drop?.includes('ALL')) {
      problems.push(`${where}: container ${each.name} needs allowPrivilegeEscalation false, a read-only root filesystem and every capability dropped`);
    }
    if (!each.resources?.requests || !each.resources.limits) problems.push(`${where}: container ${each.name} needs resource requests and limits`);
  }
  for (const each of pod.containers) {
    if (!each.readinessProbe || !each.livenessProbe) problems.push(`${where}: container ${each.name} needs a readiness and a liveness probe`);
  }
}

/** Environment of a container as the cluster assembles it, from the rendered ConfigMaps and sample Secret values. */
function environment(each: Container, configMaps: Map<string, Record<string, string>>, where: string, problems: string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const source of each.envFrom) {
    if (source.secretRef) continue;
    const name = source.configMapRef?.name ?? '';
    const data = configMaps.get(name);
    if (!data) problems.push(`${where}: container ${each.name} reads ConfigMap ${name}, which the overlay does not have`);
    Object.assign(variables, data);
  }
  for (const variable of each.env) {
    const reference = variable.valueFrom?.secretKeyRef;
    if (reference?.optional) continue;
    variables[variable.name] = variable.value ?? SAMPLE_SECRET_VALUES[reference?.key ?? ''] ?? 'sample-provider-key';
  }
  return variables;
}

/** Variables read outside a service's zod config: OpenTelemetry's, and edge's provider keys and base URLs. */
function readElsewhere(service: string, name: string): boolean {
  return name.startsWith(TELEMETRY_PREFIX) || (SERVICES[service]?.callsProviders === true && (/_API_KEY$/.test(name) || name === 'UPSTREAM_BASE_URL' || name.startsWith('PROVIDER_BASE_URL_')));
}

/** The longest request a service serves, from its config: its drain must let it finish. */
function longestRequestMs(service: string, config: Record<string, unknown>, overlay: Map<string, Record<string, unknown>>): number {
  const number = (value: unknown) => (typeof value === 'number' ? value : 0);
  if (service === 'edge') return Math.max(...['AGENT_CHAT_DEADLINE_MS', 'PROVIDER_TIMEOUT_MS', 'USAGE_DEADLINE_MS', 'AGENT_DEADLINE_MS', 'RPC_DEADLINE_MS'].map((key) => number(config[key])));
  // An agent chat is edge's call to the agent, under edge's deadline.
  if (service === 'agent') return number(overlay.get('edge')?.AGENT_CHAT_DEADLINE_MS);
  if (service === 'usage') return number(overlay.get('edge')?.USAGE_DEADLINE_MS);
  const edge = overlay.get('edge');
  // A Record waits for its commit window and then the answer's grace.
  if (service === 'ledger') return Math.max(number(edge?.RPC_DEADLINE_MS), number(edge?.RECORD_DEADLINE_MS) + number(edge?.RECORD_ANSWER_GRACE_MS));
  // A password grant waits on scrypt, under a deadline of its own.
  if (service === 'auth') return Math.max(number(edge?.RPC_DEADLINE_MS), PASSWORD_GRANT_DEADLINE_MS);
  return number(edge?.RPC_DEADLINE_MS);
}

/** Config and drain of every service Deployment of one rendered overlay. */
function checkServices(where: string, deployments: Deployment[], configMaps: Map<string, Record<string, string>>, problems: string[]): void {
  const configs = new Map<string, Record<string, unknown>>();
  const containers = new Map<string, Container>();
  for (const object of deployments) {
    const service = object.metadata.name;
    const shape = CONFIG_SHAPES[service];
    const main = object.spec.template.spec.containers[0];
    if (!shape || !main) continue;
    const at = `${where}: Deployment ${service}`;
    const variables = environment(main, configMaps, at, problems);
    for (const name of Object.keys(variables)) if (!(name in shape) && !readElsewhere(service, name)) problems.push(`${at}: ${name} is not a variable ${service} reads`);
    try {
      configs.set(service, loadConfig(shape, variables));
      containers.set(service, main);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((problem) => `${at}: environment: ${problem}`));
    }
  }
  for (const object of deployments) {
    const service = object.metadata.name;
    const config = configs.get(service);
    const main = containers.get(service);
    if (!config || !main) continue;
    const at = `${where}: Deployment ${service}`;
    const preStop = main.lifecycle?.preStop?.sleep?.seconds;
    if (preStop === undefined) problems.push(`${at}: needs a preStop sleep, so that it leaves the endpoints before SIGTERM`);
    const budgetMs = (preStop ?? 0) * 1000 + Number(config.DRAIN_DELAY_MS) + Number(config.DRAIN_TIMEOUT_MS) + CLOSE_MARGIN_MS;
    const grace = object.spec.template.spec.terminationGracePeriodSeconds ?? 30;
    if (grace * 1000 < budgetMs) problems.push(`${at}: terminationGracePeriodSeconds ${grace} is shorter than its drain (preStop + DRAIN_DELAY_MS + DRAIN_TIMEOUT_MS + ${CLOSE_MARGIN_MS / 1000} s = ${budgetMs / 1000} s)`);
    const longest = longestRequestMs(service, config, configs);
    if (Number(config.DRAIN_TIMEOUT_MS) < longest) problems.push(`${at}: DRAIN_TIMEOUT_MS ${String(config.DRAIN_TIMEOUT_MS)} cuts its longest request (${longest} ms)`);
  }
}

function checkProduction(where: string, objects: KubeObject[], deployments: Deployment[], problems: string[]): void {
  const ofKind = (kind: string) => objects.filter((object) => object.kind === kind);
  const policySchema = z.object({
    spec: z.object({ podSelector: labelSelector, policyTypes: z.array(z.string()).default([]), ingress: z.array(z.unknown()).default([]), egress: z.array(z.unknown()).default([]) }),
  });
  const policies = ofKind('NetworkPolicy').map((object) => ({ name: object.metadata.name, ...policySchema.parse(object).spec }));
  const denyAll = policies.some(
    ({ podSelector, policyTypes, ingress, egress }) =>
      !podSelector.matchLabels && !podSelector.matchExpressions && policyTypes.includes('Ingress') && policyTypes.includes('Egress') && ingress.length === 0 && egress.length === 0,
  );
  if (!denyAll) problems.push(`${where}: no default-deny NetworkPolicy (every pod, both directions, no rule)`);
  const budgets = ofKind('PodDisruptionBudget').map((object) => selectorOf.parse(object).spec.selector?.matchLabels ?? {});
  const autoscaled = new Set(ofKind('HorizontalPodAutoscaler').map((object) => z.object({ spec: z.object({ scaleTargetRef: z.object({ name: z.string() }) }) }).parse(object).spec.scaleTargetRef.name));
  for (const object of deployments) {
    const at = `${where}: Deployment ${object.metadata.name}`;
    const labels = object.spec.template.metadata.labels;
    if (!budgets.some((selector) => Object.keys(selector).length > 0 && matches({ matchLabels: selector }, labels))) problems.push(`${at}: no PodDisruptionBudget selects its pods`);
    if (!policies.some(({ podSelector }) => (podSelector.matchLabels || podSelector.matchExpressions) && matches(podSelector, labels))) problems.push(`${at}: no NetworkPolicy allows it anything (only the default deny selects it)`);
    const keys = new Set(object.spec.template.spec.topologySpreadConstraints.map(({ topologyKey }) => topologyKey));
    if (!keys.has('kubernetes.io/hostname') || !keys.has('topology.kubernetes.io/zone')) problems.push(`${at}: needs topology spread over nodes and zones`);
    if (autoscaled.has(object.metadata.name) && object.spec.replicas !== undefined) problems.push(`${at}: an autoscaler owns its replicas; remove spec.replicas`);
  }
  for (const name of HPA_TARGETS) if (!autoscaled.has(name)) problems.push(`${where}: no HorizontalPodAutoscaler for ${name}`);
}

/** Everything above for one rendered overlay. */
export function checkRendered(where: string, objects: KubeObject[], problems: string[]): void {
  validateSchemas(where, objects, problems);
  const configMaps = new Map(
    objects.filter((object) => object.kind === 'ConfigMap').map((object) => [object.metadata.name, (object as { data?: Record<string, string> }).data ?? {}] as const),
  );
  const deployments: Deployment[] = [];
  for (const object of objects.filter((each) => each.kind === 'Deployment')) {
    const parsed = deployment.safeParse(object);
    if (!parsed.success) {
      problems.push(`${where}: Deployment ${object.metadata.name}: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
      continue;
    }
    deployments.push(parsed.data);
    checkContainers(`${where}: Deployment ${object.metadata.name}`, parsed.data.spec.template.spec, problems);
  }
  checkServices(where, deployments, configMaps, problems);
  if (where.startsWith(PROD)) checkProduction(where, objects, deployments, problems);
}

/** Every overlay and optional composition, rendered and checked; the rendered objects by path, for the skaffold check. */
export function checkOverlays(root: string, problems: string[]): Map<string, KubeObject[]> {
  const rendered = new Map<string, KubeObject[]>();
  for (const overlay of OVERLAYS) rendered.set(overlay, render(root, overlay, problems));
  for (const { overlay, component } of OPTIONAL_COMPONENTS) rendered.set(`${overlay} + ${component}`, renderWithComponent(root, overlay, component, problems));
  for (const [where, objects] of rendered) checkRendered(where, objects, problems);
  return rendered;
}

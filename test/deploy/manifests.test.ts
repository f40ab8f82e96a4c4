import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICES, checkDeploy, readDeployFiles, type DeployFiles } from '../../deploy/check';
import { checkOverlays, checkRendered, render, type KubeObject } from '../../deploy/overlays-check';
import { checkSkaffold } from '../../deploy/skaffold-check';
import { ENTRY_POINTS, RUNTIME_FILES, SERVICE_NODE_FLAGS } from '../../deploy/build';
import { dockerfile } from '../../deploy/dockerfiles';
import { REPO_ROOT } from '../support/paths';

/** The repository's deploy/ files with one text replaced; the text must be there, so a stale case fails loudly. */
function edited(files: DeployFiles, path: string, from: string, to: string): DeployFiles {
  const text = files.get(path);
  if (text === undefined || !text.includes(from)) throw new Error(`${path} no longer contains ${JSON.stringify(from)}`);
  return new Map(files).set(path, text.replace(from, to));
}

describe('deploy/', () => {
  const files = readDeployFiles(REPO_ROOT);

  it('agrees with the services it deploys', () => {
    expect(checkDeploy(files, REPO_ROOT)).toEqual([]);
  });

  it.each([
    {
      change: 'a required variable is missing from a ConfigMap',
      path: 'deploy/base/edge.yaml',
      from: '  ROUTER_ADDRESS: dns:///router:50052\n',
      to: '',
      problem: 'deploy/base/edge.yaml: Deployment edge: environment: ROUTER_ADDRESS: required but not set',
    },
    {
      change: 'a required Secret reference is missing',
      path: 'deploy/base/ledger.yaml',
      from: '            - name: REDIS_URL\n              valueFrom:\n                secretKeyRef: { name: gateway-secrets, key: REDIS_URL }\n',
      to: '',
      problem: 'deploy/base/ledger.yaml: Deployment ledger: environment: REDIS_URL: required but not set',
    },
    {
      change: 'a value the service rejects',
      path: 'deploy/base/edge.yaml',
      from: 'COOKIE_SECURE: "true"',
      to: 'COOKIE_SECURE: "yes please"',
      problem: 'deploy/base/edge.yaml: Deployment edge: environment: COOKIE_SECURE: Invalid option: expected one of "true"|"false"',
    },
    {
      change: 'a variable the service does not read',
      path: 'deploy/base/edge.yaml',
      from: 'RECORD_DEADLINE_MS: "250"',
      to: 'RECORD_DEADLINE: "250"',
      problem: 'deploy/base/edge.yaml: Deployment edge: RECORD_DEADLINE is not a variable edge reads',
    },
    {
      change: 'an unquoted number in a ConfigMap',
      path: 'deploy/base/router.yaml',
      from: 'PORT: "50052"',
      to: 'PORT: 50052',
      problem: 'deploy/base/router.yaml: ConfigMap router-config: data.PORT: Invalid input: expected string, received number',
    },
    {
      change: 'a service listening on loopback only',
      path: 'deploy/base/pricing.yaml',
      from: 'HOST: "0.0.0.0"',
      to: 'HOST: "127.0.0.1"',
      problem: 'deploy/base/pricing.yaml: Deployment pricing: HOST 127.0.0.1 is not reachable from other pods; listen on 0.0.0.0',
    },
    {
      change: 'CATALOG_PATH outside the mounted catalog',
      path: 'deploy/base/router.yaml',
      from: 'CATALOG_PATH: /etc/gateway/catalog/catalog.json',
      to: 'CATALOG_PATH: /etc/gateway/catalog.json',
      problem:
        'deploy/base/router.yaml: Deployment router: CATALOG_PATH /etc/gateway/catalog.json is not a file of the catalog ConfigMap mounted at /etc/gateway/catalog (catalog.json)',
    },
    {
      change: 'a catalog copy that drifted from the shipped catalog',
      path: 'deploy/base/catalog.json',
      from: '"prices_as_of"',
      to: '"prices_as_of" ',
      problem:
        'deploy/base/catalog.json: differs from services/lib/catalog/catalog.json; copy it again: cp services/lib/catalog/catalog.json deploy/base/catalog.json',
    },
    {
      change: 'a migration command that runs another service’s migrations',
      path: 'deploy/base/auth.yaml',
      from: 'command: ["node", "services/auth/dist/migrate.js"]',
      to: 'command: ["node", "services/ledger/dist/migrate.js"]',
      problem: 'deploy/base/auth.yaml: Deployment auth: container migrate runs services/ledger/dist/migrate.js, which is not in gateway/auth',
    },
    {
      change: 'an address that does not match the Service',
      path: 'deploy/base/edge.yaml',
      from: 'LEDGER_ADDRESS: dns:///ledger:50054',
      to: 'LEDGER_ADDRESS: dns:///ledger:50055',
      problem: 'deploy/base/edge.yaml: Deployment edge: LEDGER_ADDRESS is dns:///ledger:50055; expected dns:///ledger:50054',
    },
    {
      change: 'a gRPC Service that is not headless',
      path: 'deploy/base/router.yaml',
      from: '  clusterIP: None\n',
      to: '',
      problem: 'deploy/base/edge.yaml: Deployment edge: ROUTER_ADDRESS resolves Service router by DNS, which should be headless (clusterIP: None)',
    },
    {
      change: 'an image that runs the TypeScript again',
      path: 'services/pricing/Dockerfile',
      from: '"services/pricing/dist/main.js"]',
      to: '"--import", "tsx", "services/pricing/src/main.ts"]',
      problem: 'services/pricing/Dockerfile: differs from what deploy/dockerfiles.ts writes for it',
    },
    {
      change: 'an image that installs every workspace\'s dependencies',
      path: 'services/edge/Dockerfile',
      from: ' --workspace=@gateway/edge',
      to: '',
      problem: 'services/edge/Dockerfile: differs from what deploy/dockerfiles.ts writes for it',
    },
    {
      change: 'an image that leaves out a file the bundle reads',
      path: 'services/ledger/Dockerfile',
      from: 'COPY services/ledger/src/quota/lua services/ledger/src/quota/lua\n',
      to: '',
      problem: 'services/ledger/Dockerfile: differs from what deploy/dockerfiles.ts writes for it',
    },
    {
      change: 'a floating Node version',
      path: 'services/simulator/Dockerfile',
      from: 'ARG NODE_IMAGE=node:20.20.2-bookworm-slim',
      to: 'ARG NODE_IMAGE=node:20-slim',
      problem: 'services/simulator/Dockerfile: differs from what deploy/dockerfiles.ts writes for it',
    },
    {
      change: 'a writable root filesystem',
      path: 'deploy/base/router.yaml',
      from: 'readOnlyRootFilesystem: true',
      to: 'readOnlyRootFilesystem: false',
      problem: 'deploy/base/router.yaml: Deployment router: spec.template.spec.containers.0.securityContext.readOnlyRootFilesystem: Invalid input: expected true',
    },
    {
      change: 'a Secret key the README does not document',
      path: 'deploy/README.md',
      from: '| `GEMINI_API_KEY` | no |',
      to: '| GEMINI_API_KEY | no |',
      problem: 'deploy/README.md: the Secret table does not list GEMINI_API_KEY, which the manifests read',
    },
    {
      change: 'a provider key that would stop edge from starting when absent',
      path: 'deploy/base/edge.yaml',
      from: 'key: OPENAI_API_KEY, optional: true',
      to: 'key: OPENAI_API_KEY',
      problem: 'deploy/base/edge.yaml: Deployment edge: OPENAI_API_KEY should come from Secret key OPENAI_API_KEY, optional (a provider without its key answers 503)',
    },
    {
      change: 'a Dockerfile exposing another port',
      path: 'services/ledger/Dockerfile',
      from: 'EXPOSE 50054 9464',
      to: 'EXPOSE 50055 9464',
      problem: 'services/ledger/Dockerfile: differs from what deploy/dockerfiles.ts writes for it',
    },
    {
      change: 'a metrics port the pod annotations do not name',
      path: 'deploy/base/router.yaml',
      from: 'prometheus.io/port: "9464"',
      to: 'prometheus.io/port: "9465"',
      problem: 'deploy/base/router.yaml: Deployment router: pod annotation prometheus.io/port should be "9464"',
    },
    {
      change: 'a manifest port the image does not expose',
      path: 'deploy/base/usage.yaml',
      from: 'PORT: "50055"',
      to: 'PORT: "50065"',
      problem: 'services/usage/Dockerfile: the image exposes 50055 9464, its config\'s defaults, but its manifest sets 50065 9464',
    },
    {
      change: 'a METRICS_PORT the container does not open',
      path: 'deploy/base/pricing.yaml',
      from: 'METRICS_PORT: "9464"',
      to: 'METRICS_PORT: "9100"',
      problem: 'deploy/base/pricing.yaml: Deployment pricing: no container port named metrics on 9100',
    },
    {
      change: 'a YAML syntax error',
      path: 'deploy/base/kustomization.yaml',
      from: 'resources:\n',
      to: 'resources: [\n',
      problem: 'deploy/base/kustomization.yaml: ',
    },
  ])('fails on $change', ({ path, from, to, problem }) => {
    const problems = checkDeploy(edited(files, path, from, to), REPO_ROOT);
    expect(problems.some((line) => line.startsWith(problem))).toBe(true);
  });

  it('fails on a Deployment of a service the base does not run', () => {
    const simulator = [
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: simulator }',
      'spec:',
      '  replicas: 1',
      '  selector: { matchLabels: { app: simulator } }',
      '  template:',
      '    metadata: { labels: { app: simulator } }',
      '    spec:',
      '      automountServiceAccountToken: false',
      '      securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: RuntimeDefault } }',
      '      containers:',
      '        - name: simulator',
      '          image: gateway/simulator',
      '          resources: { requests: { cpu: 10m, memory: 64Mi }, limits: { cpu: 100m, memory: 128Mi } }',
      '          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: [ALL] } }',
      '',
    ].join('\n');
    const path = 'deploy/base/router.yaml';
    const problems = checkDeploy(new Map(files).set(path, `${files.get(path)}${simulator}`), REPO_ROOT);
    expect(problems).toContain(`deploy/base/router.yaml: Deployment simulator is not a service of the base (${Object.keys(SERVICES).join(', ')})`);
  });
});

/**
 * The overlays as a cluster would get them: rendered by kubectl kustomize,
 * validated against the Kubernetes schemas, held to the policies, and
 * skaffold.yaml held to them and to the Dockerfiles. The failing cases edit
 * a rendered object, or skaffold.yaml's text, and name the problem.
 */
describe('the overlays and skaffold.yaml', () => {
  const problems: string[] = [];
  const rendered = checkOverlays(REPO_ROOT, problems);
  const skaffoldText = readFileSync(join(REPO_ROOT, 'skaffold.yaml'), 'utf8');
  const services = [...Object.keys(SERVICES), 'simulator'];
  checkSkaffold(REPO_ROOT, skaffoldText, services, rendered, problems);

  it('render, validate and hold every policy', () => {
    expect(problems).toEqual([]);
    expect([...rendered.keys()]).toEqual(['deploy/overlays/dev', 'deploy/overlays/prod', 'deploy/overlays/prod + deploy/components/prometheus-operator']);
    expect(rendered.get('deploy/overlays/prod + deploy/components/prometheus-operator')?.map(({ kind }) => kind)).toContain('ServiceMonitor');
  });

  /** The prod overlay's objects with one changed by `edit` (a deep copy), checked again. */
  const checkEdited = (edit: (objects: KubeObject[]) => KubeObject[]) => {
    const found: string[] = [];
    const copy = JSON.parse(JSON.stringify(rendered.get('deploy/overlays/prod') ?? [])) as KubeObject[];
    checkRendered('deploy/overlays/prod', edit(copy), found);
    return found;
  };
  const named = (kind: string, name: string) => (object: KubeObject) => object.kind === kind && object.metadata.name === name;
  const pod = (object: KubeObject | undefined) => (object as unknown as { spec: { template: { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } } } }).spec.template.spec;

  it.each([
    {
      change: 'a Deployment without a disruption budget',
      edit: (objects: KubeObject[]) => objects.filter((object) => !named('PodDisruptionBudget', 'router')(object)),
      problem: 'deploy/overlays/prod: Deployment router: no PodDisruptionBudget selects its pods',
    },
    {
      change: 'a Deployment no NetworkPolicy allows anything',
      edit: (objects: KubeObject[]) => objects.filter((object) => object.kind !== 'NetworkPolicy' || object.metadata.name === 'default-deny'),
      problem: 'deploy/overlays/prod: Deployment usage: no NetworkPolicy allows it anything',
    },
    {
      change: 'no default deny',
      edit: (objects: KubeObject[]) => objects.filter((object) => !named('NetworkPolicy', 'default-deny')(object)),
      problem: 'deploy/overlays/prod: no default-deny NetworkPolicy',
    },
    {
      change: 'a grace period shorter than the drain',
      edit: (objects: KubeObject[]) => {
        pod(objects.find(named('Deployment', 'edge'))).terminationGracePeriodSeconds = 30;
        return objects;
      },
      problem: 'deploy/overlays/prod: Deployment edge: terminationGracePeriodSeconds 30 is shorter than its drain',
    },
    {
      change: 'a drain that cuts the longest request',
      edit: (objects: KubeObject[]) => {
        const config = objects.find(named('ConfigMap', 'edge-config')) as unknown as { data: Record<string, string> };
        config.data.DRAIN_TIMEOUT_MS = '60000';
        return objects;
      },
      problem: 'deploy/overlays/prod: Deployment edge: DRAIN_TIMEOUT_MS 60000 cuts its longest request (180000 ms)',
    },
    {
      change: 'a variable the service does not read',
      edit: (objects: KubeObject[]) => {
        (objects.find(named('ConfigMap', 'router-config')) as unknown as { data: Record<string, string> }).data.ROUTER_SPEED = 'fast';
        return objects;
      },
      problem: 'deploy/overlays/prod: Deployment router: ROUTER_SPEED is not a variable router reads',
    },
    {
      change: 'a container without a liveness probe',
      edit: (objects: KubeObject[]) => {
        delete pod(objects.find(named('Deployment', 'ledger'))).containers[0]?.livenessProbe;
        return objects;
      },
      problem: 'deploy/overlays/prod: Deployment ledger: container ledger needs a readiness and a liveness probe',
    },
    {
      change: 'no topology spread',
      edit: (objects: KubeObject[]) => {
        delete pod(objects.find(named('Deployment', 'auth'))).topologySpreadConstraints;
        return objects;
      },
      problem: 'deploy/overlays/prod: Deployment auth: needs topology spread over nodes and zones',
    },
    {
      change: 'replicas on an autoscaled Deployment',
      edit: (objects: KubeObject[]) => {
        (objects.find(named('Deployment', 'pricing')) as unknown as { spec: { replicas: number } }).spec.replicas = 2;
        return objects;
      },
      problem: 'deploy/overlays/prod: Deployment pricing: an autoscaler owns its replicas; remove spec.replicas',
    },
    {
      change: 'an object the Kubernetes schema refuses',
      edit: (objects: KubeObject[]) => {
        (objects.find(named('HorizontalPodAutoscaler', 'edge')) as unknown as { spec: { minReplicas: unknown } }).spec.minReplicas = 'three';
        return objects;
      },
      problem: 'deploy/overlays/prod: HorizontalPodAutoscaler edge: ',
    },
  ])('fails on $change', ({ edit, problem }) => {
    expect(checkEdited(edit).some((line) => line.startsWith(problem))).toBe(true);
  });

  it.each([
    { change: 'an artifact built from another Dockerfile', from: 'dockerfile: services/usage/Dockerfile', to: 'dockerfile: services/ledger/Dockerfile', problem: 'skaffold.yaml: gateway/usage is built from services/ledger/Dockerfile' },
    { change: 'a profile deploying a path that is no overlay', from: 'paths: [deploy/overlays/prod]', to: 'paths: [deploy/base]', problem: 'skaffold.yaml: profile prod deploys deploy/base, which is not an overlay' },
    { change: 'a field skaffold would not know', from: '  tagPolicy:\n    gitCommit: {}\n  local:', to: '  tagPolicy:\n    gitCommit: {}\n    sha256: {}\n  local:', problem: 'skaffold.yaml: build.tagPolicy: ' },
    {
      change: 'an image the overlay runs that no artifact builds',
      from: '    - image: gateway/edge\n      context: .\n      docker:\n        dockerfile: services/edge/Dockerfile\n    - image: gateway/simulator',
      to: '    - image: gateway/simulator',
      problem: 'skaffold.yaml: profile (default): deploy/overlays/dev runs gateway/edge, which the profile does not build',
    },
  ])('fails on $change in skaffold.yaml', ({ from, to, problem }) => {
    if (!skaffoldText.includes(from)) throw new Error(`skaffold.yaml no longer contains ${JSON.stringify(from)}`);
    const found: string[] = [];
    checkSkaffold(REPO_ROOT, skaffoldText.replace(from, to), services, rendered, found);
    expect(found.some((line) => line.startsWith(problem))).toBe(true);
  });

  it('fails clearly where kubectl is not installed', () => {
    const found: string[] = [];
    expect(render(REPO_ROOT, 'deploy/overlays/dev', found, 'kubectl-that-is-not-installed')).toEqual([]);
    expect(found).toEqual(['deploy/overlays/dev: kubectl is not installed; the deploy check renders every overlay with `kubectl kustomize` (install kubectl, which bundles kustomize)']);
  });
});

describe('the Dockerfiles', () => {
  it('build compiled JavaScript on an exact Node version, with one workspace\'s production dependencies, as user node', () => {
    for (const service of Object.keys(ENTRY_POINTS)) {
      const text = dockerfile(service);
      expect(text).toMatch(/^ARG NODE_IMAGE=node:\d+\.\d+\.\d+-bookworm-slim$/m);
      expect(text).toContain(`npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace=@gateway/${service}`);
      expect(text).toContain(`RUN npx tsx deploy/build.ts ${service}`);
      for (const file of RUNTIME_FILES[service] ?? []) expect(text).toContain(`COPY ${file} ${file}`);
      expect(text).toContain('USER node');
      expect(text.trimEnd().split('\n').at(-1)).toBe(`CMD ["node", ${SERVICE_NODE_FLAGS.map((flag) => `"${flag}", `).join('')}"services/${service}/dist/main.js"]`);
    }
  });
});

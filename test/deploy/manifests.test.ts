import { SERVICES, checkDeploy, readDeployFiles, type DeployFiles } from '../../deploy/check';
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
      from: '  ROUTER_ADDRESS: router:50052\n',
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
      from: 'QUOTA_RESERVATION_USD: "0.010000"',
      to: 'QUOTA_RESERVATION_USD: "one cent"',
      problem: 'deploy/base/edge.yaml: Deployment edge: environment: QUOTA_RESERVATION_USD: must be a USD amount with at most 6 decimal places',
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
      from: 'command: ["node", "--import", "tsx", "services/auth/src/db/migrate-cli.ts"]',
      to: 'command: ["node", "--import", "tsx", "services/ledger/src/db/migrate-cli.ts"]',
      problem: 'deploy/base/auth.yaml: Deployment auth: container migrate runs services/ledger/src/db/migrate-cli.ts, which is not in gateway/auth',
    },
    {
      change: 'an address that does not match the Service',
      path: 'deploy/base/edge.yaml',
      from: 'LEDGER_ADDRESS: ledger:50054',
      to: 'LEDGER_ADDRESS: ledger:50055',
      problem: 'deploy/base/edge.yaml: Deployment edge: LEDGER_ADDRESS is ledger:50055, but Service ledger listens on ledger:50054',
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
      problem: 'services/ledger/Dockerfile: expected the line `EXPOSE 50054 9464`',
    },
    {
      change: 'a metrics port the pod annotations do not name',
      path: 'deploy/base/router.yaml',
      from: 'prometheus.io/port: "9464"',
      to: 'prometheus.io/port: "9465"',
      problem: 'deploy/base/router.yaml: Deployment router: pod annotation prometheus.io/port should be "9464"',
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

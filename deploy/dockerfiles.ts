import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { agentConfigShape } from '@gateway/agent/config';
import { authConfigShape } from '@gateway/auth/config';
import { edgeConfigShape } from '@gateway/edge/config';
import { ledgerConfigShape } from '@gateway/ledger/config';
import { pricingConfigShape } from '@gateway/pricing/config';
import { routerConfigShape } from '@gateway/router/config';
import { simulatorConfigShape } from '@gateway/simulator/config';
import { usageConfigShape } from '@gateway/usage/config';
import { compiledEntry, ENTRY_POINTS, REPO_ROOT, RUNTIME_FILES, SERVICE_NODE_FLAGS } from './build';

/**
 * Every service's Dockerfile, from one template: the images differ only in
 * the service they build, the port it listens on (its config's default) and
 * the files its bundle reads. `npx tsx deploy/dockerfiles.ts` writes them;
 * the deploy check fails when one differs from what this writes.
 */
const SHAPES: Readonly<Record<string, z.ZodRawShape>> = {
  auth: authConfigShape,
  router: routerConfigShape,
  pricing: pricingConfigShape,
  ledger: ledgerConfigShape,
  usage: usageConfigShape,
  agent: agentConfigShape,
  edge: edgeConfigShape,
  simulator: simulatorConfigShape,
};

export const NODE_IMAGE = 'node:20.20.2-bookworm-slim';

/**
 * The packages patches/ fixes (patch-package names a patch
 * `@scope+name+version.patch`). The images install with scripts off, so the
 * build stage applies the patches and the image takes those packages from it.
 */
const PATCHED_PACKAGES = readdirSync(join(REPO_ROOT, 'patches'))
  .filter((file) => file.endsWith('.patch'))
  .map((file) => file.slice(0, -'.patch'.length).split('+').slice(0, -1).join('/'));

/**
 * Static files a service serves, built by another workspace in the build
 * stage (which holds every dev dependency, the bundlers among them) and
 * copied into the image at the path the service reads them from.
 */
const STATIC_ASSETS: Readonly<Record<string, ReadonlyArray<{ workspace: string; output: string }>>> = {
  edge: [{ workspace: '@gateway/console', output: 'services/console/dist' }],
};

/** A config shape's default for one of its variables (PORT, METRICS_PORT). */
export function defaultOf(service: string, variable: string): unknown {
  const field = SHAPES[service]?.[variable];
  return field === undefined ? undefined : z.object({ value: field }).parse({}).value;
}

export function dockerfile(service: string): string {
  const commands = Object.keys(ENTRY_POINTS[service] ?? {}).filter((name) => name !== 'main');
  const alsoHolds = commands.length > 0 ? `\n# The image also holds its ${commands.join(' and ')} command${commands.length > 1 ? 's' : ''} (${commands.map((name) => compiledEntry(service, name)).join(', ')}).` : '';
  const files = RUNTIME_FILES[service] ?? [];
  const runtimeFiles = files.length > 0 ? files.map((file) => `COPY ${file} ${file}`).join('\n') : '# (none for this service)';
  const assets = STATIC_ASSETS[service] ?? [];
  const buildAssets = assets.map(({ workspace }) => `\nRUN npm run build --workspace ${workspace}`).join('');
  const copyAssets = assets.map(({ output }) => `\nCOPY --from=build /src/${output} ${output}`).join('');
  const copyPatched = ['# The patched dependencies, as the build stage left them.', ...PATCHED_PACKAGES.map((name) => `COPY --from=build /src/node_modules/${name} node_modules/${name}`)].join('\n');
  const command = ['node', ...SERVICE_NODE_FLAGS, compiledEntry(service)].map((part) => JSON.stringify(part)).join(', ');
  return `# syntax=docker/dockerfile:1
# gateway/${service}: compiled JavaScript on Node, with this service's production
# dependencies only. Written by deploy/dockerfiles.ts (edit the template there).${alsoHolds}
# Build from the repository root (skaffold.yaml builds every service this way):
#   docker build -f services/${service}/Dockerfile -t gateway/${service} .
ARG NODE_IMAGE=${NODE_IMAGE}

# Every workspace manifest at its path: npm ci needs them all, and this
# stage's output changes only when one does, which keeps the installs cached.
FROM \${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \\;

# The bundle: every dependency (the compiler is one), then \`npm run build\` for this service.
FROM \${NODE_IMAGE} AS build
WORKDIR /src
COPY --from=manifests /manifests/ ./
COPY package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
# The fixes to dependencies that patches/ holds (docs/decisions.md says why each).
COPY patches patches
RUN npx patch-package
COPY tsconfig.base.json ./
COPY proto/gen proto/gen
COPY services services
COPY deploy/build.ts deploy/build.ts
RUN npx tsx deploy/build.ts ${service}${buildAssets}

# What the bundle requires at run time: this workspace's production
# dependencies and its workspace dependencies' (the workspaces themselves are
# in the bundle, so their links go).
FROM \${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
COPY package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace=@gateway/${service} \\
 && rm -rf node_modules/@gateway && npm cache clean --force
${copyPatched}

FROM \${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /src/services/${service}/dist services/${service}/dist${copyAssets}
# Read at run time, where the bundle looks for them (deploy/build.ts, RUNTIME_FILES).
${runtimeFiles}
# The image's unprivileged user (uid 1000); the manifests require a non-root uid too.
USER node
EXPOSE ${String(defaultOf(service, 'PORT'))} ${String(defaultOf(service, 'METRICS_PORT'))}
# Source maps ship beside the bundle; NODE_OPTIONS=--enable-source-maps maps stack
# traces to the TypeScript (it costs about 20 MiB and some startup: docs/performance.md).
# The flags are every service's (deploy/build.ts, SERVICE_NODE_FLAGS, says why).
CMD [${command}]
`;
}

if (require.main === module) {
  for (const service of Object.keys(ENTRY_POINTS)) writeFileSync(join(REPO_ROOT, 'services', service, 'Dockerfile'), dockerfile(service));
  console.log(`wrote services/{${Object.keys(ENTRY_POINTS).join(',')}}/Dockerfile`);
}

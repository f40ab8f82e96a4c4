# gateway/runtime: the image every service image starts from, never deployed by
# itself. Node 20, the workspace's node_modules as npm ci lays them out (the
# services run their TypeScript through tsx, no compile step), the shared
# library with the model catalog, and the generated gRPC stubs; each service's
# Dockerfile adds its own directory and command. Build from the repository
# root, before the service images:
#   docker build -f deploy/runtime.Dockerfile -t gateway/runtime .

# Every workspace manifest, at its path: npm ci needs all of them, and this
# stage's output changes only when a manifest does, which keeps the install cached.
FROM node:20-slim AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \;

FROM node:20-slim AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
COPY package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

FROM node:20-slim
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json .npmrc tsconfig.base.json tsconfig.json ./
COPY proto/package.json proto/
COPY proto/gen proto/gen
COPY services/lib services/lib
# The image's unprivileged user (uid 1000); the manifests require a non-root uid too.
USER node

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { OVERLAYS, type KubeObject } from './overlays-check';

/**
 * skaffold.yaml, checked without skaffold: the fields this project uses,
 * modelled from skaffold's v4beta11 schema (anything else is an error), and
 * held to the repository: one artifact per service Dockerfile, each built
 * from the repository root, every profile deploying an overlay that exists,
 * and every image an overlay runs built by the profile that deploys it (and
 * nothing built that it does not run).
 */
const SKAFFOLD = 'skaffold.yaml';

const artifact = z.strictObject({ image: z.string().regex(/^gateway\/[a-z]+$/), context: z.literal('.'), docker: z.strictObject({ dockerfile: z.string() }) });
const build = z.strictObject({
  tagPolicy: z.strictObject({ gitCommit: z.strictObject({}) }).optional(),
  local: z.strictObject({ push: z.boolean(), useBuildkit: z.boolean().optional(), concurrency: z.number().int().min(0).optional() }),
  artifacts: z.array(artifact).min(1),
});
const manifests = z.strictObject({ kustomize: z.strictObject({ paths: z.array(z.string()).min(1) }) });
const hook = z.strictObject({ host: z.strictObject({ command: z.array(z.string()).min(1) }) });
const deploy = z.strictObject({ kubectl: z.strictObject({ hooks: z.strictObject({ before: z.array(hook).optional(), after: z.array(hook).optional() }).optional() }) });
const portForward = z.array(
  z.strictObject({ resourceType: z.enum(['service', 'deployment', 'pod']), resourceName: z.string(), namespace: z.string().optional(), port: z.number().int(), localPort: z.number().int().optional() }),
);
export const skaffoldSchema = z.strictObject({
  apiVersion: z.literal('skaffold/v4beta11'),
  kind: z.literal('Config'),
  metadata: z.strictObject({ name: z.string().min(1) }),
  build,
  manifests,
  deploy,
  portForward: portForward.optional(),
  profiles: z.array(z.strictObject({ name: z.string(), build: build.optional(), manifests: manifests.optional(), deploy: deploy.optional(), portForward: portForward.optional() })).default([]),
});

/** Images of every container of every rendered workload. */
function imagesRun(objects: KubeObject[]): Set<string> {
  const images = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'containers' || key === 'initContainers') && Array.isArray(inner)) {
          for (const container of inner) if (typeof (container as { image?: unknown }).image === 'string') images.add((container as { image: string }).image);
        } else visit(inner);
      }
    }
  };
  objects.forEach(visit);
  return images;
}

export function checkSkaffold(root: string, text: string | undefined, services: readonly string[], rendered: Map<string, KubeObject[]>, problems: string[]): void {
  if (text === undefined) {
    problems.push(`${SKAFFOLD}: missing`);
    return;
  }
  const parsed = skaffoldSchema.safeParse(parse(text));
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((issue) => `${SKAFFOLD}: ${issue.path.join('.') || '(root)'}: ${issue.message}`));
    return;
  }
  const config = parsed.data;
  const built = new Set(config.build.artifacts.map(({ image }) => image));
  for (const { image, docker } of config.build.artifacts) {
    const service = image.slice('gateway/'.length);
    if (docker.dockerfile !== `services/${service}/Dockerfile`) problems.push(`${SKAFFOLD}: ${image} is built from ${docker.dockerfile}, not services/${service}/Dockerfile`);
    if (!existsSync(join(root, docker.dockerfile))) problems.push(`${SKAFFOLD}: ${image}: ${docker.dockerfile} does not exist`);
  }
  for (const service of services) {
    if (existsSync(join(root, 'services', service, 'Dockerfile')) && !built.has(`gateway/${service}`)) problems.push(`${SKAFFOLD}: no artifact builds services/${service}/Dockerfile`);
  }
  const deployments = [{ name: '(default)', build: config.build, manifests: config.manifests }, ...config.profiles.map((profile) => ({ name: profile.name, build: profile.build ?? config.build, manifests: profile.manifests ?? config.manifests }))];
  for (const { name, build: profileBuild, manifests: profileManifests } of deployments) {
    const images = new Set(profileBuild.artifacts.map(({ image }) => image));
    for (const path of profileManifests.kustomize.paths) {
      const objects = rendered.get(path);
      if (!(OVERLAYS as readonly string[]).includes(path) || !objects) {
        problems.push(`${SKAFFOLD}: profile ${name} deploys ${path}, which is not an overlay (${OVERLAYS.join(', ')})`);
        continue;
      }
      // By name: the overlays tag them (latest), skaffold replaces the tag with what it built.
      const run = [...imagesRun(objects)].map((image) => image.replace(/[:@].*$/, '')).filter((image) => image.startsWith('gateway/'));
      for (const image of new Set(run)) if (!images.has(image)) problems.push(`${SKAFFOLD}: profile ${name}: ${path} runs ${image}, which the profile does not build`);
      for (const image of images) if (!run.includes(image)) problems.push(`${SKAFFOLD}: profile ${name} builds ${image}, which ${path} does not run`);
    }
  }
}

import type { Catalog } from '@gateway/lib/catalog';
import { published, type Published } from '@gateway/lib/published';
import { createRouter, routingPolicyFromCatalog, type Router } from '@gateway/lib/routing';

/**
 * The router in force, bound to its catalog's routing policy, and everyone
 * watching that policy. A new catalog whose policy differs publishes a new
 * version to `Route` and every watcher; one that routes alike changes nothing.
 */
export type RoutingSource = Published<Router>;

/** Fails (CatalogError) when the catalog cannot be routed. */
export function routerFromCatalog(catalog: Catalog): Router {
  return createRouter(routingPolicyFromCatalog(catalog));
}

export function routingSource(catalog: Catalog): RoutingSource {
  return published(routerFromCatalog(catalog), (router) => router.policy.version);
}

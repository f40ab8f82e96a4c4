import type { Logger } from '@gateway/lib/logging';
import type { RoutingSource } from './routing-policy';

/** Everything the router depends on: the routing policy in force (from a catalog loaded and checked before it starts). */
export interface RouterDeps {
  routing: RoutingSource;
  logger: Logger;
}

import type { ServiceProcess } from '../../support/processes';
import { eventually } from './eventually';

/** Waits until edge holds the router's routing policy (it logs each version it takes), so that it routes locally. */
export function routingPolicyHeld(edge: ServiceProcess): Promise<true> {
  return eventually(async () => (edge.logs().includes('routing policy received') ? true : undefined), 'edge to hold the routing policy');
}

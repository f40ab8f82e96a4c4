import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@gateway/lib/logging';
import { principalInvalidationChannels } from '@gateway/lib/principal-invalidation';
import { createRedis, reportConnectionErrors } from '@gateway/lib/redis';
import { PrincipalCache } from './principal-cache';
import { listenForInvalidations } from './principal-invalidations';

export interface PrincipalCacheConfig {
  REDIS_URL?: string | undefined;
  PRINCIPAL_CACHE_TTL_MS: number;
  PRINCIPAL_CACHE_MAX_ENTRIES: number;
  PRINCIPAL_EVENTS_PREFIX: string;
}

/**
 * The principal cache with its invalidation listener, or nothing when edge
 * has no Redis or the TTL is 0: a cache nobody can invalidate is never kept.
 */
export function startPrincipalCache(
  config: PrincipalCacheConfig,
  logger: Logger,
  onOrganizationChanged?: (organizationId: string) => void,
): { cache: PrincipalCache; close(): void } | undefined {
  if (!config.REDIS_URL || config.PRINCIPAL_CACHE_TTL_MS === 0) return undefined;
  const cache = new PrincipalCache({ ttlMs: config.PRINCIPAL_CACHE_TTL_MS, maxEntries: config.PRINCIPAL_CACHE_MAX_ENTRIES });
  const publisher = createRedis(config.REDIS_URL, { name: 'edge-invalidation-acks' });
  const subscriber = createRedis(config.REDIS_URL, { name: 'edge-invalidations' });
  reportConnectionErrors(publisher, logger, 'invalidation acknowledgements');
  reportConnectionErrors(subscriber, logger, 'invalidations');
  const listener = listenForInvalidations({
    subscriber,
    publisher,
    channels: principalInvalidationChannels(config.PRINCIPAL_EVENTS_PREFIX),
    cache,
    replica: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    logger,
    ...(onOrganizationChanged ? { onOrganizationChanged } : {}),
  });
  return {
    cache,
    close() {
      listener.close();
      publisher.disconnect();
    },
  };
}

import type { Logger } from '@gateway/lib/logging';
import { parseMessage, principalInvalidationSchema, type PrincipalInvalidationChannels } from '@gateway/lib/principal-invalidation';
import type { Redis } from '@gateway/lib/redis';
import type { PrincipalCache } from './principal-cache';

export interface InvalidationListenerOptions {
  /** Subscribed to invalidations; a subscribed connection can do nothing else. */
  subscriber: Redis;
  /** Publishes acknowledgements. */
  publisher: Redis;
  channels: PrincipalInvalidationChannels;
  cache: PrincipalCache;
  /** This replica's name in acknowledgements. */
  replica: string;
  logger: Logger;
  /** Told of each organization invalidated (a plan change reaches the allowance leases too). */
  onOrganizationChanged?: (organizationId: string) => void;
}

/**
 * Keeps the principal cache coherent with auth: each invalidation empties
 * the organization's entries, then is acknowledged, so auth's revoke returns
 * only once this replica can no longer answer from what it dropped. The cache
 * is used only while the subscription stands: from the moment the connection
 * is lost until it is subscribed again, invalidations could be missed, so
 * the cache is emptied and every call goes to auth.
 */
export function listenForInvalidations({ subscriber, publisher, channels, cache, replica, logger, onOrganizationChanged }: InvalidationListenerOptions): { close(): void } {
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== channels.invalidations) return;
    const invalidation = parseMessage(principalInvalidationSchema, text);
    if (!invalidation) {
      // Not understood: the only safe reading is that anything may have changed.
      cache.disable();
      cache.enable();
      logger.warn('unreadable principal invalidation: dropped every cached principal');
      return;
    }
    cache.dropOrganization(invalidation.organizationId);
    onOrganizationChanged?.(invalidation.organizationId);
    publisher.publish(channels.acknowledgements, JSON.stringify({ id: invalidation.id, replica })).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not acknowledge a principal invalidation');
    });
  });

  const lost = () => {
    if (cache.size > 0) logger.warn('principal invalidations unreachable: every call goes to auth until they are back');
    cache.disable();
  };
  subscriber.on('close', lost);
  subscriber.on('reconnecting', lost);
  subscriber.on('ready', () => {
    subscriber.subscribe(channels.invalidations).then(
      () => cache.enable(),
      (error: unknown) => {
        logger.warn({ err: error }, 'could not subscribe to principal invalidations; every call goes to auth');
        cache.disable();
      },
    );
  });
  // 'error' is also followed by 'close'; listening keeps ioredis from reporting it as unhandled.
  subscriber.on('error', () => cache.disable());

  return {
    close() {
      cache.disable();
      subscriber.disconnect();
    },
  };
}

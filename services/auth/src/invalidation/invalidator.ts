import { randomUUID } from 'node:crypto';
import type { Logger } from '@gateway/lib/logging';
import {
  invalidationAcknowledgementSchema,
  parseMessage,
  type PrincipalInvalidationChannels,
} from '@gateway/lib/principal-invalidation';
import type { Redis } from '@gateway/lib/redis';

/**
 * Tells every edge replica that an organization's credentials changed
 * (a key revoked or edited, an agent record changed), so that none of them
 * keeps granting what was just taken away.
 */
export interface PrincipalInvalidator {
  /**
   * Resolves once every edge replica listening has dropped the
   * organization's verified principals, or once the wait has timed out
   * (logged). Never rejects: the change itself is already committed.
   */
  invalidateOrganization(organizationId: string): Promise<void>;
  close(): void;
}

/** Where edge runs in the same process (the embedded mode): its cache is told directly, before the change returns. */
export function inProcessInvalidator(dropOrganization: (organizationId: string) => void): PrincipalInvalidator {
  return { invalidateOrganization: async (organizationId) => dropOrganization(organizationId), close: () => undefined };
}

export interface RedisInvalidatorOptions {
  /** Publishes invalidations. */
  publisher: Redis;
  /** Subscribed to acknowledgements; a subscribed connection can do nothing else. */
  subscriber: Redis;
  channels: PrincipalInvalidationChannels;
  /** Longest wait for every replica's acknowledgement. */
  timeoutMs: number;
  logger: Logger;
}

interface Pending {
  acknowledgedBy: Set<string>;
  /** Replicas that received the invalidation (PUBLISH's answer); unknown until it returns. */
  expected: number | undefined;
  finish(): void;
}

/**
 * PUBLISH answers how many subscribers received the message; each
 * acknowledges on its own channel once its cache no longer holds the
 * organization. A replica that is not subscribed is not counted, and it
 * keeps no principals while it is not (the edge side's rule), so waiting for
 * exactly the receivers is waiting for every replica that could answer from
 * a cache.
 */
export function createRedisInvalidator({ publisher, subscriber, channels, timeoutMs, logger }: RedisInvalidatorOptions): PrincipalInvalidator {
  const pending = new Map<string, Pending>();
  let markSubscribed = () => undefined as void;
  // Acknowledgements sent before the subscription stands would be lost: the first invalidation waits for it.
  const subscribed = new Promise<void>((resolve) => {
    markSubscribed = resolve;
  });
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== channels.acknowledgements) return;
    const acknowledgement = parseMessage(invalidationAcknowledgementSchema, text);
    const waiting = acknowledgement && pending.get(acknowledgement.id);
    if (!acknowledgement || !waiting) return;
    waiting.acknowledgedBy.add(acknowledgement.replica);
    if (waiting.expected !== undefined && waiting.acknowledgedBy.size >= waiting.expected) waiting.finish();
  });
  // On every (re)connection, so that a Redis that was away at start or restarted since changes nothing.
  subscriber.on('ready', () => {
    subscriber.subscribe(channels.acknowledgements).then(markSubscribed, (error: unknown) => {
      logger.warn({ err: error }, 'could not subscribe to principal invalidation acknowledgements');
    });
  });

  return {
    async invalidateOrganization(organizationId) {
      const id = randomUUID();
      let finish = () => undefined as void;
      const finished = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const waiting: Pending = { acknowledgedBy: new Set(), expected: undefined, finish };
      pending.set(id, waiting);
      const timer = setTimeout(finish, timeoutMs);
      try {
        await Promise.race([subscribed, finished]);
        waiting.expected = await publisher.publish(channels.invalidations, JSON.stringify({ id, organizationId }));
        if (waiting.acknowledgedBy.size < waiting.expected) await finished;
        if (waiting.acknowledgedBy.size < waiting.expected) {
          logger.warn(
            { organization_id: organizationId, expected: waiting.expected, acknowledged: waiting.acknowledgedBy.size, timeout_ms: timeoutMs },
            'not every edge replica acknowledged a principal invalidation in time; the rest drop it within their cache TTL',
          );
        }
      } catch (error) {
        logger.error(
          { err: error, organization_id: organizationId },
          'could not publish a principal invalidation; edge replicas drop the change within their cache TTL',
        );
      } finally {
        clearTimeout(timer);
        pending.delete(id);
      }
    },
    close() {
      for (const waiting of pending.values()) waiting.finish();
      subscriber.disconnect();
    },
  };
}

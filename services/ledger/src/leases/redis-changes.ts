import { z } from 'zod';
import type { Logger } from '@gateway/lib/logging';
import type { Redis } from '@gateway/lib/redis';
import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import type { AllowanceChanges } from './changes';

/**
 * The store's scripts publish the organization id alone (quota/lua/add-credits.lua,
 * set-spend-allowance.lua); a catalog change publishes EVERY_ORGANIZATION.
 */
const announcement = z.union([z.guid(), z.literal(EVERY_ORGANIZATION)]);

export interface RedisAllowanceChanges extends AllowanceChanges {
  /** Settles once the subscription made at the last connection stands (or failed, which is logged). */
  subscribed(): Promise<void>;
}

/**
 * One subscription per ledger process on the allowance-changes channel
 * (LedgerKeys.allowanceChanges), fanned out to its listeners. The connection
 * is the subscriber's alone: a subscribed connection can do nothing else. It
 * subscribes again at every reconnection. What is published while it is down
 * is not heard, so once it is subscribed again it publishes
 * EVERY_ORGANIZATION (`announceEverywhere`, on another connection): every
 * holder gives back its leases and asks anew. Published rather than told to
 * its own streams alone, since a holder may have moved to another ledger
 * process's stream meanwhile, and a holder that replaced its stream while the
 * old one stood does not act on the new one's greeting (edge's leases.ts).
 * Told to its own streams when it cannot publish.
 */
export function redisAllowanceChanges(subscriber: Redis, channel: string, logger: Logger, announceEverywhere: () => Promise<void>): RedisAllowanceChanges {
  const listeners = new Set<(organizationId: string) => void>();
  const announce = (organizationId: string) => {
    for (const listener of listeners) listener(organizationId);
  };
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const parsed = announcement.safeParse(text);
    if (!parsed.success) {
      // Not understood: the only safe reading is that any organization may have changed.
      logger.warn({ channel }, 'unreadable allowance change announcement: every holder asks anew');
    }
    announce(parsed.success ? parsed.data : EVERY_ORGANIZATION);
  });
  let subscription = Promise.resolve();
  let subscribedBefore = false;
  const subscribe = () => {
    subscription = subscriber.subscribe(channel).then(
      () => {
        if (subscribedBefore) {
          announceEverywhere().catch((error: unknown) => {
            logger.warn({ err: error }, 'could not publish that allowance changes may have been missed: telling this process\'s holders only');
            announce(EVERY_ORGANIZATION);
          });
        }
        subscribedBefore = true;
      },
      (error: unknown) => logger.warn({ err: error }, 'could not subscribe to allowance changes; holders learn of them from the counters of their next Lease answer'),
    );
  };
  subscriber.on('ready', subscribe);
  if (subscriber.status === 'ready') subscribe();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    subscribed: () => subscription,
  };
}

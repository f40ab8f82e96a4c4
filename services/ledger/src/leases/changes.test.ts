import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import { allowanceChangesUntil, MemoryAllowanceChanges } from './changes';

describe('allowanceChangesUntil', () => {
  it('starts with every organization, passes announcements on in order, once for an organization announced again before it was read, and ends on abort', async () => {
    const changes = new MemoryAllowanceChanges();
    const abort = new AbortController();
    const stream = allowanceChangesUntil(changes, abort.signal)[Symbol.asyncIterator]();
    // The holder may have missed announcements while it had no stream.
    await expect(stream.next()).resolves.toEqual({ done: false, value: EVERY_ORGANIZATION });
    const first = stream.next();
    changes.announce('org-a');
    await expect(first).resolves.toEqual({ done: false, value: 'org-a' });
    changes.announce('org-b');
    changes.announce('org-c');
    changes.announce('org-b');
    await expect(stream.next()).resolves.toEqual({ done: false, value: 'org-b' });
    await expect(stream.next()).resolves.toEqual({ done: false, value: 'org-c' });
    const waiting = stream.next();
    abort.abort();
    await expect(waiting).resolves.toEqual({ done: true, value: undefined });
    // Unsubscribed: nothing is kept for a stream that ended.
    changes.announce('org-d');
    await expect(stream.next()).resolves.toEqual({ done: true, value: undefined });
  });
});

import { published } from './source';

interface Value {
  version: string;
  note: string;
}

describe('a published value', () => {
  it('sends the value in force, then each new version, to every watcher until it aborts', async () => {
    const source = published<Value>({ version: 'a', note: 'first' }, (value) => value.version);
    const abort = new AbortController();
    const watchers = [source.watch(abort.signal)[Symbol.asyncIterator](), source.watch(abort.signal)[Symbol.asyncIterator]()];
    for (const watcher of watchers) await expect(watcher.next()).resolves.toEqual({ done: false, value: { version: 'a', note: 'first' } });

    expect(source.replace({ version: 'a', note: 'same version' })).toBe(false);
    expect(source.current().note).toBe('first');
    const pending = watchers.map((watcher) => watcher.next());
    expect(source.replace({ version: 'b', note: 'second' })).toBe(true);
    await expect(Promise.all(pending)).resolves.toEqual([
      { done: false, value: { version: 'b', note: 'second' } },
      { done: false, value: { version: 'b', note: 'second' } },
    ]);

    const ending = watchers.map((watcher) => watcher.next());
    abort.abort();
    await expect(Promise.all(ending)).resolves.toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
  });
});

import { setImmediate as nextTurn } from 'node:timers/promises';
import { startService, type ServiceProcess } from './processes';
import { supervise, type Supervision } from './supervisor';

/**
 * The local stack's restarts, on a real service process (the router, which
 * needs no database): a crash is restarted on the same port with a growing
 * wait and logged; a process its handle stopped stays stopped.
 */
describe('supervise', () => {
  const lines: string[] = [];
  const processes: ServiceProcess[] = [];
  let supervision: Supervision;

  const launch = (port = 0) => startService({ name: 'router', entry: 'services/router/src/main.ts', env: { PORT: String(port) } });

  /** Resolves with the process that replaces `previous`. */
  const replacement = (previous: ServiceProcess) =>
    new Promise<ServiceProcess>((resolve) => {
      const poll = () => (supervision.current() !== previous ? resolve(supervision.current()) : setTimeout(poll, 20));
      poll();
    });

  afterAll(async () => {
    supervision?.stop();
    await Promise.all(processes.map((process) => process.kill()));
  });

  it('restarts a crashed process on its port, waiting longer after each crash, and logs each restart', async () => {
    const first = await launch();
    processes.push(first);
    supervision = supervise(
      first,
      async () => {
        const next = await launch(first.port);
        processes.push(next);
        return next;
      },
      { initialBackoffMs: 100, maxBackoffMs: 400, resetAfterMs: 600_000, log: (line) => lines.push(line) },
      () => undefined,
    );

    // A crash as the stack sees one: a signal that is not the handle's.
    process.kill(first.pid, 'SIGKILL');
    const second = await replacement(first);
    expect(second.port).toBe(first.port);
    expect(second.pid).not.toBe(first.pid);

    process.kill(second.pid, 'SIGKILL');
    const third = await replacement(second);
    expect(third.port).toBe(first.port);
    expect(supervision.restarts()).toBe(2);
    expect(lines).toEqual([
      `router (pid ${first.pid}) was ended by SIGKILL; restarting in 0.1 s`,
      `router restarted (restart 1): pid ${second.pid} on ${second.address}`,
      `router (pid ${second.pid}) was ended by SIGKILL; restarting in 0.2 s`,
      `router restarted (restart 2): pid ${third.pid} on ${third.address}`,
    ]);
  });

  it('leaves a process that its handle stopped or killed on purpose stopped', async () => {
    const running = supervision.current();
    const logged = lines.length;
    await running.kill();
    expect((await running.exited).requested).toBe(true);
    // The supervisor decides as the exit is reported; a turn later a restart would have been logged.
    await nextTurn();
    expect(lines.slice(logged)).toEqual([]);
    expect(supervision.current()).toBe(running);
    expect(supervision.restarts()).toBe(2);
  });
});

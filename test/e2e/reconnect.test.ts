import { createPromiseClient, RECONNECT_BACKOFF, type PromiseClient } from '@gateway/lib/grpc';
import { DomainError } from '@gateway/lib/errors';
import { RouteRequest, RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { reportedServingAt, startService, type ServiceProcess } from '../support/processes';

/**
 * A backend that was away for a long time is used again as soon as it
 * serves: the client's reconnect attempts never drift further apart than
 * lib's RECONNECT_BACKOFF allows, however long the outage. The backend is
 * the router (a real process, killed with SIGKILL and started again on the
 * same port), called through lib's client as edge calls it.
 *
 * The outage is long enough for grpc-js's own backoff (1 s growing 1.6 times
 * per attempt to 120 s) to have drifted well past the bound: with it, the
 * first call that reached the restarted router came 5 to 15 s after it
 * reported SERVING.
 */

/** How often the test calls while the router is down: like a steady trickle of traffic. */
const CALL_INTERVAL_MS = 25;

/** The longest wait between two reconnect attempts once the backoff has reached its ceiling (jitter included). */
const LONGEST_ATTEMPT_GAP_MS = RECONNECT_BACKOFF.maxMs * (1 + RECONNECT_BACKOFF.jitter);

/** Attempts until the backoff reaches its ceiling, and how long those take: the outage must last longer for the test to mean anything. */
function timeToCeilingMs(): number {
  let total = 0;
  for (let delay = RECONNECT_BACKOFF.initialMs; delay < RECONNECT_BACKOFF.maxMs; delay *= RECONNECT_BACKOFF.multiplier) total += delay * (1 + RECONNECT_BACKOFF.jitter);
  return total;
}

/**
 * At least 15 s, which grpc-js's default backoff needs to be 10 s between
 * attempts, and at least twice the time this client's backoff needs to reach
 * its ceiling.
 */
const OUTAGE_MS = Math.max(15_000, 2 * timeToCeilingMs());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a call reached the router: an answer, or an error the router itself gave (the empty request is refused). */
async function reached(client: PromiseClient<typeof RouterServiceService>): Promise<boolean> {
  try {
    await client.route(RouteRequest.fromPartial({}), { deadlineMs: 2000 });
    return true;
  } catch (error) {
    return error instanceof DomainError && error.kind !== 'unavailable' && error.kind !== 'timeout';
  }
}

describe('a backend that comes back after a long outage', () => {
  const started: ServiceProcess[] = [];
  let client: PromiseClient<typeof RouterServiceService>;

  afterAll(async () => {
    client?.close();
    await Promise.all(started.map((process) => process.kill()));
  });

  it('is called again within the reconnect backoff ceiling of reporting SERVING', async () => {
    const first = await startService({ name: 'router', entry: 'services/router/src/main.ts', env: {} });
    started.push(first);
    client = createPromiseClient(RouterServiceService, { serviceName: 'router', address: `dns:///${first.address}`, deadlineMs: 2000 });
    expect(await reached(client)).toBe(true);

    await first.kill();
    const downUntil = Date.now() + OUTAGE_MS;
    let failedDuringOutage = 0;
    while (Date.now() < downUntil) {
      if (!(await reached(client))) failedDuringOutage += 1;
      await sleep(CALL_INTERVAL_MS);
    }
    expect(failedDuringOutage).toBeGreaterThan(0);

    // Calls go on while the router starts again, as traffic would.
    let firstReachedAt: number | undefined;
    let attemptsAfterStart = 0;
    const restarting = startService({ name: 'router', entry: 'services/router/src/main.ts', env: { PORT: String(first.port) } });
    let restartedProcess: ServiceProcess | undefined;
    void restarting.then((process) => (restartedProcess = process));
    while (firstReachedAt === undefined) {
      attemptsAfterStart += 1;
      if (await reached(client)) firstReachedAt = Date.now();
      else await sleep(CALL_INTERVAL_MS);
    }
    const second = restartedProcess ?? (await restarting);
    started.push(second);
    const serving = reportedServingAt(second);
    expect(serving).toBeDefined();
    const delayMs = firstReachedAt - (serving ?? 0);
    console.log(
      `outage ${(OUTAGE_MS / 1000).toFixed(1)} s; first call reached the restarted router ${delayMs} ms after it reported SERVING (${attemptsAfterStart} calls after the restart began; bound ${2 * LONGEST_ATTEMPT_GAP_MS} ms)`,
    );
    // One reconnect attempt may race the process's start and fail; the next comes at most one gap later.
    expect(delayMs).toBeLessThanOrEqual(2 * LONGEST_ATTEMPT_GAP_MS);
  });
});

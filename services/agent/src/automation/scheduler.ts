import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import type { AgentDatabase } from '../db/schema';
import type { WorkflowRow } from '../db/tables/workflows';
import { writeLog } from '../logs/logs';
import { nextCronRun } from './schedule';

/**
 * Finds due workflows and runs each exactly once, however many agent
 * replicas look at the same time. A replica claims one due workflow in a
 * transaction: `select ... for update skip locked` takes the row (another
 * replica skips it rather than waits), and the same transaction moves
 * `next_run_at` on (the next cron time, or none for a one-off, which
 * completes), counts the run and logs `workflow_run_started`. Once that
 * commits, no replica sees the run as due any more; the run itself (a model
 * call) happens after the commit, so no lock is held while it waits. A
 * replica that dies mid-run loses that run rather than repeating it: at most
 * once, with the start in the log.
 */
export interface Scheduler {
  /** Runs every workflow due now, one after another; resolves with how many ran. */
  runDue(): Promise<number>;
  stop(): Promise<void>;
}

export type WorkflowRunner = (workflow: WorkflowRow) => Promise<void>;

/** Identifies the replica in the log, so a test or an operator can tell who ran what. */
export const RUNNER_ID = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/** Claims one due workflow, advancing it in the same transaction; undefined when nothing is due. */
export async function claimDueWorkflow(db: Kysely<AgentDatabase>, now: Date, runner = RUNNER_ID): Promise<WorkflowRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('workflows')
      .selectAll()
      .where('status', '=', 'active')
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!due) return undefined;
    const next = due.cron === null ? null : nextCronRun(due.cron, now);
    const claimed = await trx
      .updateTable('workflows')
      .set({
        next_run_at: next,
        status: next === null ? 'completed' : 'active',
        last_run_at: now,
        run_count: due.run_count + 1,
        updated_at: now,
      })
      .where('id', '=', due.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeLog(trx, due.agent_id, 'workflow_run_started', {
      workflow_id: due.id,
      run: claimed.run_count,
      due_at: due.next_run_at,
      runner,
    });
    return claimed;
  });
}

export function startScheduler(db: Kysely<AgentDatabase>, run: WorkflowRunner, logger: Logger, intervalMs: number): Scheduler {
  let stopped = false;
  let current: Promise<number> = Promise.resolve(0);

  const runDue = async (): Promise<number> => {
    let ran = 0;
    while (!stopped) {
      const workflow = await claimDueWorkflow(db, new Date());
      if (!workflow) break;
      ran += 1;
      try {
        await run(workflow);
      } catch (error) {
        // The run's own failure is recorded by the runner; this is the runner failing.
        logger.error({ err: error, workflow_id: workflow.id }, 'workflow run failed');
      }
    }
    return ran;
  };

  const tick = () => {
    current = current.then(runDue).catch((error: unknown) => {
      logger.warn({ err: error }, 'scheduler could not look for due workflows');
      return 0;
    });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    runDue: () => {
      tick();
      return current;
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}

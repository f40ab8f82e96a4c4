import { sql } from 'kysely';
import { agentApi, seedAgentUser, type AgentApi, type AgentUser } from './support/agent';
import { eventually } from './support/eventually';
import { committedTrace } from './support/ledger';
import { startE2e, type E2e } from './support/harness';

/**
 * The workflow scheduler with two agent replicas on one database: each
 * replica looks for due workflows every 100 ms, and every due workflow runs
 * exactly once, its result landing in the workflow's session.
 */
jest.setTimeout(90_000);

type Json = Record<string, unknown>;
const WORKFLOWS = 12;

let e2e: E2e;
let owner: AgentUser;
let api: AgentApi;

beforeAll(async () => {
  e2e = await startE2e('agent_scheduler', { serviceEnv: { agent: { SCHEDULER_INTERVAL_MS: '100' } } });
  await e2e.stack.startReplica('agent');
  owner = await seedAgentUser(e2e);
  api = agentApi(e2e.stack.baseUrl, owner);
}, 180_000);

afterAll(async () => {
  await e2e?.close();
});

async function createWorkflow(command: string, text: string): Promise<Json> {
  const response = await api.post<{ workflow: Json }>('/chat-automate', { command, text });
  expect(response.status).toBe(201);
  return response.body.workflow;
}

function finished(ids: string[]) {
  return eventually(async () => {
    const rows = await e2e.agent.db.selectFrom('workflows').selectAll().where('id', 'in', ids).execute();
    return rows.length === ids.length && rows.every((row) => row.last_run_status !== null) ? rows : undefined;
  }, `${ids.length} workflow runs`, 45_000);
}

it('runs each due workflow exactly once across two replicas, and lands the result in its session', async () => {
  // Made for later, then all made due at once: both replicas see them due together. Made one at a
  // time: what is tested is the runs, and a burst of calls on the replica just started (its first
  // calls to auth, its first database connections) can pass their deadlines on a busy machine.
  const created: Json[] = [];
  for (let index = 0; index < WORKFLOWS; index += 1) created.push(await createWorkflow('remind', `in 3 hours call supplier ${index}`));
  const ids = created.map((workflow) => workflow.id as string);
  await e2e.agent.db.updateTable('workflows').set({ next_run_at: sql<Date>`now() - interval '1 second'` }).where('id', 'in', ids).execute();

  const rows = await finished(ids);
  // Another round of looking changes nothing: a one-off that ran is done.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const again = await e2e.agent.db.selectFrom('workflows').selectAll().where('id', 'in', ids).execute();
  expect(again.map((row) => row.run_count)).toEqual(rows.map(() => 1));
  for (const row of again) {
    expect(row).toMatchObject({ status: 'completed', next_run_at: null, last_run_status: 'ok' });
  }

  const starts = await e2e.agent.db
    .selectFrom('logs')
    .select(['details'])
    .where('agent_id', '=', owner.agentId)
    .where('event', '=', 'workflow_run_started')
    .execute();
  const startsPerWorkflow = new Map<string, number>();
  for (const { details } of starts) startsPerWorkflow.set(details.workflow_id as string, (startsPerWorkflow.get(details.workflow_id as string) ?? 0) + 1);
  expect(ids.map((id) => startsPerWorkflow.get(id))).toEqual(ids.map(() => 1));
  const runners = new Set(starts.map(({ details }) => details.runner));
  console.log(`${WORKFLOWS} due workflows were run by ${runners.size} replica(s)`);

  for (const workflow of created) {
    const messages = await e2e.agent.db.selectFrom('messages').selectAll().where('session_id', '=', workflow.session_id as string).execute();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ role: 'assistant', workflow_id: workflow.id, content: `Reminder: ${workflow.task as string}` });
  }
});

it('asks the model through the gateway for a task, and moves a recurring workflow to its next run', async () => {
  const task = await createWorkflow('trigger', 'summarise my open sessions');
  const recurring = await createWorkflow('schedule', 'every 15 minutes check the deploy queue');
  await e2e.agent.db.updateTable('workflows').set({ next_run_at: sql<Date>`now() - interval '1 second'` }).where('id', '=', recurring.id as string).execute();
  const [first, second] = await finished([task.id as string, recurring.id as string]).then((rows) =>
    [task, recurring].map((workflow) => rows.find((row) => row.id === workflow.id)),
  );

  expect(first).toMatchObject({ status: 'completed', run_count: 1, last_run_status: 'ok' });
  const [answer] = await e2e.agent.db.selectFrom('messages').selectAll().where('session_id', '=', task.session_id as string).execute();
  expect(answer).toMatchObject({ role: 'assistant', workflow_id: task.id, content: expect.stringMatching(/\S/) });
  expect(await committedTrace(e2e.ledger.db, answer?.request_id ?? '')).toMatchObject({ principal: 'agent_secret', agent_id: owner.agentId });

  expect(second).toMatchObject({ status: 'active', run_count: 1, last_run_status: 'ok' });
  expect(second?.next_run_at?.getTime()).toBeGreaterThan(Date.now());
  expect((second?.next_run_at?.getUTCMinutes() ?? 1) % 15).toBe(0);

  const status = await api.post<{ workflows: Json[] }>('/chat-automate', { command: 'status' });
  expect(status.body.workflows.find((workflow) => workflow.id === recurring.id)).toMatchObject({ run_count: 1, status: 'active', last_run_status: 'ok' });
});

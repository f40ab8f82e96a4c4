/**
 * `npm run bench:auth`: the auth service's Authenticate over real gRPC, as a
 * real process on a real Postgres, at a paced 1,000 calls/s and at its
 * maximum, then whether a revocation is seen by the very next call. Every
 * call reads the key's row (there is no verification cache), so the figures
 * include the database lookup. Prints tables; asserts no time.
 *
 * Options: --seconds N (each paced run, default 10), --keys N (rows in
 * api_keys, default 100,000).
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { z } from 'zod';
import { createKey } from '@gateway/auth/admin';
import { DomainError } from '@gateway/lib/errors';
import { createAuthTestDatabase, seedMember, seedOrganization } from '../../services/auth/test/support/seed';
import { startAuth } from '../../services/auth/test/support/auth-process';
import { prepareBenchEnvironment } from './support/environment';
import { runClosed, runPaced, type LoadResult, type Send } from './support/load';
import { machineLine, ms } from './support/stats';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, keys: { type: 'string' } } });
const seconds = z.coerce.number().positive().default(10).parse(values.seconds);
const keyRows = z.coerce.number().int().min(1000).default(100_000).parse(values.keys);
/** Keys the calls rotate through, created the way the Console creates them. */
const LIVE_KEYS = 500;
const REVOCATION_ROUNDS = 50;

function row(name: string, result: LoadResult) {
  return {
    run: name,
    calls: result.sent,
    errors: result.errors,
    'calls/s': Math.round(result.achievedRate),
    'p50 ms': ms(result.latency.p50),
    'p90 ms': ms(result.latency.p90),
    'p99 ms': ms(result.latency.p99),
    'max ms': ms(result.latency.max),
    'send lag p99 ms': ms(result.sendLag.p99),
  };
}

async function main(): Promise<void> {
  const infra = await prepareBenchEnvironment('auth');
  const database = await createAuthTestDatabase('bench_auth');
  try {
    const organization = await seedOrganization(database.db, 'pro');
    const ownerId = await seedMember(database.db, organization.id, 'owner');
    const owner = await database.db.selectFrom('users').select('email').where('id', '=', ownerId).executeTakeFirstOrThrow();

    // The rest of the table: other organizations' keys, so the index is the size of a real one.
    await sql`
      insert into auth.api_keys (organization_id, name, prefix, secret_hash, scopes, created_by_user_id)
      select ${organization.id}::uuid, 'filler ' || n, 'svc_test_' || lpad(to_hex(n), 8, '0'),
             encode(sha256(n::text::bytea), 'hex'), array['inference', 'usage:read'], ${ownerId}::uuid
      from generate_series(1, ${keyRows - LIVE_KEYS}) as n`.execute(database.db);
    const keys: string[] = [];
    for (let index = 0; index < LIVE_KEYS; index += 1) {
      const created = await createKey(database.db, 'test', { org: organization.id, actorEmail: owner.email, name: `bench ${index}` });
      keys.push(created.key);
    }
    await sql`analyze auth.api_keys`.execute(database.db);

    const auth = await startAuth(database.url);
    try {
      let turn = 0;
      const authenticate: Send = async () => {
        turn = (turn + 1) % keys.length;
        await auth.client.authenticate({ credential: keys[turn] ?? '', agentId: '' });
        return { ok: true };
      };

      await runClosed({ concurrency: 8, durationMs: 3000, send: authenticate }); // warm-up: JIT, pools, plan cache
      const paced = await runPaced({ rate: 1000, durationMs: seconds * 1000, send: authenticate });
      const closed = [];
      for (const concurrency of [1, 16, 64]) {
        closed.push({ concurrency, result: await runClosed({ concurrency, durationMs: (seconds / 2) * 1000, send: authenticate }) });
      }
      const best = closed.reduce((top, entry) => (entry.result.achievedRate > top.result.achievedRate ? entry : top));

      // Revocation: verified, revoked through the RPC, then the very next call.
      let refusedNext = 0;
      for (let round = 0; round < REVOCATION_ROUNDS; round += 1) {
        const created = await auth.client.createApiKey({ actorUserId: ownerId, organizationId: organization.id, name: `revoked ${round}`, agentId: '' });
        await auth.client.authenticate({ credential: created.secret, agentId: '' });
        await auth.client.revokeApiKey({ actorUserId: ownerId, organizationId: organization.id, apiKeyId: created.apiKey?.id ?? '' });
        const next = await auth.client.authenticate({ credential: created.secret, agentId: '' }).catch((error: unknown) => error);
        if (next instanceof DomainError && next.kind === 'auth') refusedNext += 1;
      }

      console.log(`Authenticate over gRPC: one auth process on Postgres (${infra.databaseUrl.replace(/\/\/[^@]*@/, '//')}), ${keyRows.toLocaleString('en-US')} rows in api_keys, calls rotating over ${LIVE_KEYS} live keys.`);
      console.log(machineLine());
      console.table([
        row('paced 1,000 calls/s (open loop)', paced),
        ...closed.map(({ concurrency, result }) => row(`closed loop, ${concurrency} in flight`, result)),
      ]);
      console.log(`Paced 1,000 calls/s: p50 ${ms(paced.latency.p50)} ms, p99 ${ms(paced.latency.p99)} ms (target p50 <= 0.5 ms), ${paced.errors} errors.`);
      console.log(`Maximum: ${Math.round(best.result.achievedRate)} calls/s with ${best.concurrency} in flight (p50 ${ms(best.result.latency.p50)} ms, p99 ${ms(best.result.latency.p99)} ms).`);
      console.log(`Revocation: ${refusedNext}/${REVOCATION_ROUNDS} revoked keys refused by the call right after the revoke returned.`);
    } finally {
      await auth.stop();
    }
  } finally {
    await database.drop();
    await infra.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import { parseArgs } from 'node:util';
import { ConfigError, env, loadConfig } from '@gateway/lib/config';
import { connectDatabase, migrateToLatest } from '@gateway/lib/db';
import { DomainError } from '@gateway/lib/errors';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { createLogger } from '@gateway/lib/logging';
import { principalInvalidationChannels } from '@gateway/lib/principal-invalidation';
import { createRedis } from '@gateway/lib/redis';
import { authConfigShape } from '../config';
import { createRedisInvalidator } from '../invalidation/invalidator';
import { AUTH_SCHEMA, authMigrations, type AuthDatabase } from '../db';
import { serverRegions, serverTiers } from '../db/tables/agent-instances';
import { roles } from '../db/tables/memberships';
import { parseInput } from '@gateway/lib/validation';
import { MAX_EXPIRY_DAYS } from '../keys/expiry';
import { DEFAULT_SCOPES, VALID_SCOPES } from '../keys/scopes';
import {
  addMember,
  addMemberInput,
  createAgent,
  createAgentInput,
  createKey,
  createKeyInput,
  createOrganization,
  createOrganizationInput,
  createUser,
  createUserInput,
  deleteAgent,
  deleteAgentInput,
  flagName,
  issueAgentGatewayToken,
  issueAgentSecret,
  issueAgentSecretInput,
  issueGatewayTokenInput,
  MIN_PASSWORD_LENGTH,
  setPlan,
  setPlanInput,
} from './commands';
import { grantCredits, grantCreditsInput, listCredits, organizationInput, setAllowance, setAllowanceInput, showQuota } from './money';
import { DEFAULT_KEY_PREFIX, openLedgerAdmin, type LedgerAdmin } from '@gateway/ledger/admin';
import { planTierNames } from './plans';

/**
 * `npm run admin -- <command> [--flags]`: bootstraps organizations, users,
 * memberships, agent records, legacy credentials and API keys against
 * DATABASE_URL (schema `auth` is migrated first). Results are printed as
 * JSON on stdout; problems as one line on stderr, with exit status 2 for bad
 * input and 1 for anything else.
 */
const configShape = {
  DATABASE_URL: authConfigShape.DATABASE_URL,
  SECRETS_KEY: authConfigShape.SECRETS_KEY.optional(),
  KEY_ENVIRONMENT: env.keyEnvironment(),
  /** With it, a command that changes what existing credentials grant tells edge replicas at once. */
  REDIS_URL: env.optionalUrl(),
  PRINCIPAL_EVENTS_PREFIX: authConfigShape.PRINCIPAL_EVENTS_PREFIX,
  PRINCIPAL_INVALIDATION_TIMEOUT_MS: authConfigShape.PRINCIPAL_INVALIDATION_TIMEOUT_MS,
  /** The ledger's REDIS_KEY_PREFIX, for the credit and quota commands (`npm run stack` prints its own). */
  LEDGER_REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]+$/, 'letters, digits and : _ -').default(DEFAULT_KEY_PREFIX),
};
type AdminConfig = z.infer<z.ZodObject<typeof configShape>>;

interface Flag {
  description: string;
  boolean?: true;
}

interface Command<Input extends z.ZodType = z.ZodType> {
  summary: string;
  flags: Record<string, Flag>;
  /** Fills in values that do not come from flags (a password from stdin). */
  complete?(values: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Checks the flags before anything touches the database. */
  input: Input;
  run(db: Kysely<AuthDatabase>, config: AdminConfig, input: z.output<Input>): Promise<unknown>;
  /** The result holds a credential that is shown this once. */
  printsCredential?: true;
  /** The organization whose existing credentials now grant something else (edge replicas must forget them). */
  changesGrantsOf?(db: Kysely<AuthDatabase>, input: z.output<Input>): Promise<string | undefined>;
}

/** Ties each command's runner to the output of its own input schema. */
const command = <Input extends z.ZodType>(definition: Command<Input>): Command => definition;

/** Credits and quota live in the ledger's Postgres record and Redis counters: the commands that touch them need REDIS_URL. */
async function withLedger<T>(config: AdminConfig, use: (ledger: LedgerAdmin) => Promise<T>): Promise<T> {
  if (!config.REDIS_URL) throw new UsageError('REDIS_URL: is required for the credit and quota commands (the Redis the ledger uses)');
  const ledger = await openLedgerAdmin({ databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL, keyPrefix: config.LEDGER_REDIS_KEY_PREFIX });
  try {
    return await use(ledger);
  } finally {
    await ledger.close();
  }
}

const commands: Record<string, Command> = {
  'create-org': command({
    summary: 'Create an organization.',
    flags: {
      name: { description: 'organization name' },
      plan: { description: `plan tier: ${planTierNames().join(' | ')}` },
    },
    input: createOrganizationInput,
    run: (db, _config, input) => createOrganization(db, input),
  }),
  'set-plan': command({
    summary: "Move an organization to another plan (its meter, monthly allowance and model ceiling).",
    flags: { org: { description: 'organization id' }, plan: { description: `plan tier: ${planTierNames().join(' | ')}` } },
    input: setPlanInput,
    run: (db, _config, input) => setPlan(db, input),
    changesGrantsOf: async (_db, input) => input.org,
  }),
  'set-allowance': command({
    summary: "Set an organization's own monthly spend allowance in place of its plan's (spend-metered plans).",
    flags: {
      org: { description: 'organization id' },
      usd: { description: 'USD a month, exactly as written (at most 6 decimal places, e.g. 12.50), or "plan" for the plan\'s again' },
    },
    input: setAllowanceInput,
    run: (db, config, input) => withLedger(config, (ledger) => setAllowance(db, ledger, input)),
  }),
  'grant-credits': command({
    summary: 'Grant purchased credits: requests or messages counted after the monthly limit (requests and legacy meters).',
    flags: {
      org: { description: 'organization id' },
      amount: { description: 'how many requests or messages (a whole number)' },
      'expires-at': { description: 'optional: ISO-8601 date-time with a time zone (default: never)' },
    },
    input: grantCreditsInput,
    run: (db, config, input) => withLedger(config, (ledger) => grantCredits(db, ledger, input)),
  }),
  'list-credits': command({
    summary: "List an organization's purchased credits, newest first, with what is left of each.",
    flags: { org: { description: 'organization id' } },
    input: organizationInput,
    run: (db, config, input) => withLedger(config, (ledger) => listCredits(db, ledger, input)),
  }),
  quota: command({
    summary: "Show an organization's allowance this month: spent, held by calls in flight, remaining, and when it resets.",
    flags: { org: { description: 'organization id' } },
    input: organizationInput,
    run: (db, config, input) => withLedger(config, (ledger) => showQuota(db, ledger, input)),
  }),
  'create-user': command({
    summary: 'Create a user who can sign in.',
    flags: {
      email: { description: 'sign-in email' },
      password: { description: `at least ${MIN_PASSWORD_LENGTH} characters (or use --password-stdin, or ADMIN_PASSWORD)` },
      'password-stdin': { description: 'read the password from standard input', boolean: true },
    },
    complete: async (values) => ({ ...values, password: await resolvePassword(values) }),
    input: createUserInput,
    run: (db, _config, input) => createUser(db, input),
  }),
  'add-member': command({
    summary: "Add a user to an organization, or change a member's role.",
    flags: {
      org: { description: 'organization id' },
      email: { description: 'email of an existing user' },
      role: { description: roles.join(' | ') },
    },
    input: addMemberInput,
    run: (db, _config, input) => addMember(db, input),
  }),
  'create-agent': command({
    summary: 'Create an agent billing record.',
    flags: {
      org: { description: 'organization id' },
      'owner-email': { description: 'optional: the member whose agent it is' },
      model: { description: 'optional: model identifier (default auto)' },
      plan: { description: `optional: ${planTierNames().join(' | ')} (default: the organization's plan)` },
      'messages-limit': { description: "optional: monthly message limit (default: the plan's)" },
      tier: { description: `optional: ${serverTiers.join(' | ')} (default starter)` },
      region: { description: `optional: ${serverRegions.join(' | ')} (default us-east)` },
      'provider-key': { description: 'optional: your own provider key; makes the record BYOK (needs SECRETS_KEY)' },
    },
    input: createAgentInput,
    run: (db, config, input) =>
      createAgent(db, input, config.SECRETS_KEY ? Buffer.from(config.SECRETS_KEY, 'hex') : undefined),
  }),
  'delete-agent': command({
    summary: 'Delete an agent record; keys bound to it become organization keys.',
    flags: { org: { description: 'organization id' }, agent: { description: 'agent record id' } },
    input: deleteAgentInput,
    run: (db, _config, input) => deleteAgent(db, input),
    changesGrantsOf: async (_db, input) => input.org,
  }),
  'issue-gateway-token': command({
    summary: "Issue a legacy per-agent gateway token (replaces the agent's previous one).",
    flags: { agent: { description: 'agent record id' } },
    input: issueGatewayTokenInput,
    run: (db, _config, input) => issueAgentGatewayToken(db, input),
    printsCredential: true,
    // The previous token stops working.
    changesGrantsOf: async (db, input) =>
      (await db.selectFrom('agent_instances').select('organization_id').where('id', '=', input.agent).executeTakeFirst())?.organization_id,
  }),
  'issue-agent-secret': command({
    summary: 'Issue a legacy platform agent secret.',
    flags: { description: { description: 'who holds the secret' } },
    input: issueAgentSecretInput,
    run: (db, _config, input) => issueAgentSecret(db, input),
    printsCredential: true,
  }),
  'create-key': command({
    summary: 'Create an organization API key on behalf of an owner or admin.',
    flags: {
      org: { description: 'organization id' },
      'actor-email': { description: 'email of an owner or admin of the organization' },
      name: { description: 'optional: key name (default "Admin key")' },
      scopes: { description: `optional: comma-separated, from ${VALID_SCOPES.join(', ')} (default ${DEFAULT_SCOPES.join(',')})` },
      agent: { description: 'optional: agent record id to bind the key to' },
      'expires-in-days': { description: `optional: 1 to ${MAX_EXPIRY_DAYS} (default: never expires)` },
    },
    input: createKeyInput,
    run: (db, config, input) => createKey(db, config.KEY_ENVIRONMENT, input),
    printsCredential: true,
  }),
};

/** Bad input: exit status 2, with what is allowed. */
class UsageError extends Error {}

function usage(): string {
  const lines = ['Usage: npm -s run admin -- <command> [--flags]   (-s: only the JSON result on stdout)', '', 'Commands:'];
  for (const [name, command] of Object.entries(commands)) {
    lines.push(`  ${name}  ${command.summary}`);
    for (const [flag, { description, boolean }] of Object.entries(command.flags)) {
      lines.push(`      --${flag}${boolean ? '' : ' <value>'}  ${description}`);
    }
  }
  lines.push(
    '',
    'Environment: DATABASE_URL (required), SECRETS_KEY (for --provider-key), KEY_ENVIRONMENT (live | test, for create-key),',
    'ADMIN_PASSWORD (the create-user password when no flag gives one), REDIS_URL and PRINCIPAL_EVENTS_PREFIX (delete-agent, set-plan and',
    'issue-gateway-token then reach every edge replica at once; without them, within its PRINCIPAL_CACHE_TTL_MS),',
    'REDIS_URL and LEDGER_REDIS_KEY_PREFIX (the ledger\'s REDIS_KEY_PREFIX) for set-allowance, grant-credits, list-credits and quota.',
  );
  return lines.join('\n');
}

const camelCase = (flag: string) => flag.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/**
 * The create-user password: --password, else --password-stdin, else the
 * ADMIN_PASSWORD variable; the last two keep it out of shell history.
 */
async function resolvePassword(values: Record<string, unknown>): Promise<string> {
  if (values.passwordStdin === true) {
    if (values.password !== undefined) throw new UsageError('give the password once: --password or --password-stdin, not both');
    return readStdin();
  }
  const password = (values.password as string | undefined) ?? loadConfig({ ADMIN_PASSWORD: z.string().optional() }).ADMIN_PASSWORD;
  if (password === undefined) throw new UsageError('--password: is required (or give it on stdin with --password-stdin, or in ADMIN_PASSWORD)');
  return password;
}

function parseFlags(name: string, command: Command, args: string[]): Record<string, unknown> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: Object.fromEntries(Object.entries(command.flags).map(([flag, { boolean }]) => [flag, { type: boolean ? 'boolean' : 'string' }])),
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    return Object.fromEntries(Object.entries(values).map(([flag, value]) => [camelCase(flag), value]));
  } catch (error) {
    const known = Object.keys(command.flags).map((flag) => `--${flag}`).join(', ');
    const problem = error instanceof Error ? (error.message.split('. ')[0] ?? error.message) : String(error);
    throw new UsageError(`${name}: ${problem}; its flags are ${known}`);
  }
}

/** Edge replicas keep recent verifications: with Redis they forget the organization's now, else within their TTL. */
async function tellEdgeReplicas(config: AdminConfig, organizationId: string): Promise<void> {
  if (!config.REDIS_URL) {
    process.stderr.write('Edge replicas apply this within their PRINCIPAL_CACHE_TTL_MS (set REDIS_URL to apply it at once).\n');
    return;
  }
  const publisher = createRedis(config.REDIS_URL);
  const invalidator = createRedisInvalidator({
    publisher,
    subscriber: createRedis(config.REDIS_URL),
    channels: principalInvalidationChannels(config.PRINCIPAL_EVENTS_PREFIX),
    timeoutMs: config.PRINCIPAL_INVALIDATION_TIMEOUT_MS,
    logger: createLogger({ service: 'admin', level: 'warn', destination: process.stderr }),
  });
  try {
    await invalidator.invalidateOrganization(organizationId);
  } finally {
    invalidator.close();
    publisher.disconnect();
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (name === undefined) throw new UsageError(`name a command\n\n${usage()}`);
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}"\n\n${usage()}`);

  const flags = parseFlags(name, command, args);
  const input = parseInput(command.input, command.complete ? await command.complete(flags) : flags, flagName);
  const config = loadConfig(configShape);

  const database = connectDatabase<AuthDatabase>({ kind: 'postgres', url: config.DATABASE_URL, poolSize: 2 }, AUTH_SCHEMA);
  try {
    const applied = await migrateToLatest(database.db, AUTH_SCHEMA, authMigrations);
    if (applied.length > 0) process.stderr.write(`migrations applied: ${applied.join(', ')}\n`);
    const result = await command.run(database.db, config, input);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (command.printsCredential) process.stderr.write('Store the credential now: it is shown only this once.\n');
    const organizationId = await command.changesGrantsOf?.(database.db, input);
    if (organizationId !== undefined) await tellEdgeReplicas(config, organizationId);
    return 0;
  } finally {
    await database.destroy();
  }
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    const badInput = error instanceof UsageError || (error instanceof DomainError && error.kind === 'validation');
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    process.exitCode = badInput || error instanceof ConfigError ? 2 : 1;
  },
);

import { sql, type Kysely, type Transaction } from 'kysely';
import { isUndefinedTable, missingMigration, sqlStateOf } from '@gateway/lib/db';
import { DomainError } from '@gateway/lib/errors';
// Types only: the ledger owns schema `ledger` and declares its tables and
// migrations; this service's image holds none of the ledger's code, and a
// renamed schema, role or migration fails the type check here.
import type {
  LEDGER_SCHEMA,
  LEDGER_TABLES_MIGRATION,
  LedgerDatabase,
  USAGE_READER_ROLE,
  USAGE_READS_MIGRATION,
} from '@gateway/ledger/db';

/** The one table a report reads. */
export type TracesDatabase = Pick<LedgerDatabase, 'traces'>;
export type TracesTransaction = Transaction<TracesDatabase>;

export const TRACES_SCHEMA: typeof LEDGER_SCHEMA = 'ledger';
const READER_ROLE: typeof USAGE_READER_ROLE = 'ledger_usage_reader';
const TABLES_MIGRATION: typeof LEDGER_TABLES_MIGRATION = '0001_ledger';
const READS_MIGRATION: typeof USAGE_READS_MIGRATION = '0002_usage_reads';

const UNDEFINED_OBJECT = '42704';
const INSUFFICIENT_PRIVILEGE = '42501';
const QUERY_CANCELED = '57014';

export interface ReadLimits {
  /** statement_timeout of each statement. */
  timeoutMs: number;
  workMemMb: number;
}

/** The reader role is missing (migration not applied) or the login may not act as it (deployment). */
function roleFailure(error: unknown): unknown {
  if (sqlStateOf(error) === UNDEFINED_OBJECT) return missingMigration(TRACES_SCHEMA, READS_MIGRATION, error);
  if (sqlStateOf(error) !== INSUFFICIENT_PRIVILEGE) return error;
  return new DomainError('unavailable', `The usage service's database login is not a member of role ${READER_ROLE}.`, {
    cause: error,
    internalReason: 'login cannot set the reader role',
  });
}

function readFailure(error: unknown, timeoutMs: number): DomainError {
  if (error instanceof DomainError) return error;
  if (isUndefinedTable(error)) return missingMigration(TRACES_SCHEMA, TABLES_MIGRATION, error);
  switch (sqlStateOf(error)) {
    // The role exists (another database of the cluster made it) but this database never granted it anything.
    case INSUFFICIENT_PRIVILEGE:
      return missingMigration(TRACES_SCHEMA, READS_MIGRATION, error);
    case QUERY_CANCELED:
      return new DomainError('timeout', `The usage report took longer than ${timeoutMs} ms; try a shorter range.`, { cause: error });
    default:
      return new DomainError('unavailable', 'The ledger database is unavailable.', { cause: error });
  }
}

/**
 * Runs `read` in one transaction that cannot write, as the ledger's read-only
 * role (SELECT on ledger.traces, nothing else), so every statement of a
 * report sees the same snapshot. Everything is SET LOCAL: it ends with the
 * transaction, which matters on the embedded mode's shared PGlite connection.
 */
export async function readTraces<T>(db: Kysely<TracesDatabase>, limits: ReadLimits, read: (trx: TracesTransaction) => Promise<T>): Promise<T> {
  try {
    return await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        // The PGlite dialect ignores setAccessMode, so the mode is set here for both.
        await sql`set transaction read only`.execute(trx);
        await sql`set local role ${sql.id(READER_ROLE)}`.execute(trx).catch((error: unknown) => Promise.reject(roleFailure(error)));
        await sql`set local statement_timeout = ${sql.lit(limits.timeoutMs)}`.execute(trx);
        await sql`set local work_mem = ${sql.lit(`${limits.workMemMb}MB`)}`.execute(trx);
        return read(trx);
      });
  } catch (error) {
    throw readFailure(error, limits.timeoutMs);
  }
}

/** The health check: the role can read the table (the migration is applied and the login may use it). */
export async function checkTracesReadable(db: Kysely<TracesDatabase>): Promise<void> {
  await readTraces(db, { timeoutMs: 2000, workMemMb: 4 }, (trx) => trx.selectFrom('traces').select('request_id').limit(0).execute());
}

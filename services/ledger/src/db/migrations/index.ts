import type { MigrationIndex } from '@gateway/lib/db';
import * as ledger from './0001_ledger';
import * as usageReads from './0002_usage_reads';
import * as deadLetters from './0003_dead_letters';
import * as allowances from './0004_allowances';
import * as priceListVersion from './0005_price_list_version';
import * as routingPolicyVersion from './0006_routing_policy_version';

/** Every migration of schema `ledger`, in order. Released entries never change. */
export const ledgerMigrations: MigrationIndex = {
  '0001_ledger': ledger,
  '0002_usage_reads': usageReads,
  '0003_dead_letters': deadLetters,
  '0004_allowances': allowances,
  '0005_price_list_version': priceListVersion,
  '0006_routing_policy_version': routingPolicyVersion,
};

/** The migration that creates the ledger's tables, named in the 503 when it is missing. */
export const LEDGER_TABLES_MIGRATION = '0001_ledger';

/** The migration that creates `dead_letters`, named when the writer cannot set a refused record aside. */
export const DEAD_LETTERS_MIGRATION = '0003_dead_letters';

/** The migration that gives the usage service its read-only role and index, named in its 503 when missing. */
export const USAGE_READS_MIGRATION = '0002_usage_reads';

/** The read-only role the usage service queries traces as (created by USAGE_READS_MIGRATION). */
export const USAGE_READER_ROLE = 'ledger_usage_reader';

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG_PATH, type CatalogFile } from '@gateway/lib/catalog';

/**
 * The shipped catalog plus plans small enough to exhaust in a test: the
 * simulator's models at the shipped prices, with allowances of a few calls.
 */
function writeTestCatalog(): string {
  const catalog = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as CatalogFile;
  const simulated = catalog.plans.simulated;
  if (!simulated) throw new Error('the shipped catalog lost its simulated plan');
  catalog.plans.e2e_spend_tiny = {
    ...simulated,
    description: 'Test plan: a spend allowance of a few simulated calls.',
    monthly_allowance_usd: '0.000300',
    byok_requests_per_month: 2,
  };
  catalog.plans.e2e_concurrency = {
    ...simulated,
    description: 'Test plan: a spend allowance of ten small reservations, for simultaneous requests.',
    monthly_allowance_usd: '0.000100',
  };
  catalog.plans.e2e_byok_drain = {
    ...simulated,
    description: 'Test plan: a BYOK requests allowance that two edge replicas drain together.',
    byok_requests_per_month: 24,
  };
  catalog.plans.e2e_legacy = {
    ...simulated,
    description: 'Test plan: the older messages-per-month meter.',
    meter: 'legacy',
    legacy_messages_per_month: 3,
    byok_requests_per_month: 2,
  };
  catalog.plans.e2e_ceiling_standard = {
    ...simulated,
    description: 'Test plan: ceiling at the standard tier.',
    ceiling_tier: 'standard',
    tier_models: { simple: 'sim-small', standard: 'sim-medium' },
    savings_estimate_pct: { simple: 70, standard: 0 },
  };
  const path = join(mkdtempSync(join(tmpdir(), 'gateway-catalog-')), 'catalog.json');
  writeFileSync(path, JSON.stringify(catalog, null, 2));
  return path;
}

/**
 * Imported first by the end-to-end suites: the admin commands read the
 * catalog's plan names when they load, so the variable must be set before.
 */
export const TEST_CATALOG_PATH = writeTestCatalog();
process.env.CATALOG_PATH = TEST_CATALOG_PATH;

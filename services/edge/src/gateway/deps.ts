import type { CatalogModel, MeterName } from '@gateway/lib/catalog';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import type { ProviderClient } from '../provider';
import type { LeaseHolder } from './leases';
import type { HeldPriceList } from './price-list';
import type { HeldRoutingPolicy } from './routing-policy';
import type { RecordTiming } from './backends';
import type { PrincipalCache } from './principal-cache';

/** What the hot path reads of the model catalog. */
export interface GatewayCatalog {
  /** The catalog's models: the served model's prices and limits bound what a call may cost before it runs. */
  models: ReadonlyMap<string, CatalogModel>;
  /** Each plan's meter: what a leased call needs (its worst case in dollars, or one request). */
  planMeters: ReadonlyMap<string, MeterName>;
  /** Managed provider keys by catalog provider id, read from each provider's api_key_env. */
  managedProviderKeys: ReadonlyMap<string, string>;
}

export interface GatewaySettings {
  /** The catalog in force, read on every call: edge's main replaces it when the catalog file changes. */
  catalog: { current(): GatewayCatalog };
  /** Decrypts BYOK keys; the same AES-256-GCM key the auth service encrypts with. */
  secretsKey: Buffer;
  /** How long the ledger may take to commit a record, and how long edge waits for its answer beyond that. */
  recordTiming: RecordTiming;
}

/** The hot path's backends beyond auth: one client per service and the provider adapter. */
export interface GatewayBackends {
  router: PromiseClient<typeof RouterServiceService>;
  pricing: PromiseClient<typeof PricingServiceService>;
  ledger: PromiseClient<typeof LedgerServiceService>;
  provider: ProviderClient;
  settings: GatewaySettings;
  /** The price list pricing publishes, held to price answers locally; absent, every answer asks `Price`. */
  priceList?: HeldPriceList;
  /** The routing policy the router publishes, held to route locally; absent, every request asks `Route`. */
  routingPolicy?: HeldRoutingPolicy;
  /** This replica's allowance leases; absent, every call makes its own `CheckQuota`. */
  leases?: LeaseHolder;
  /** Recent verifications, kept coherent with auth through Redis; absent where edge has no Redis. */
  principals?: PrincipalCache;
}

/** What the gateway routes need. */
export interface GatewayDeps extends GatewayBackends {
  auth: PromiseClient<typeof AuthServiceService>;
  logger: Logger;
}

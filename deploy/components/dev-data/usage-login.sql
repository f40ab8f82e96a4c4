-- The usage service's login: a member of the ledger's read-only role and
-- nothing else (deploy/README.md, "Read-only access"). The ledger's migration
-- grants the role what it may read; creating it here first is harmless.
create role ledger_usage_reader nologin;
create role gateway_usage login password 'gateway-usage-dev' in role ledger_usage_reader;

import { ConfigError } from '@gateway/lib/config';

/**
 * Where each provider is reached. The catalog gives every provider's base URL;
 * the environment may override it:
 * - PROVIDER_BASE_URL_<PROVIDER> (name upper-cased, other characters as `_`)
 *   for one provider, e.g. PROVIDER_BASE_URL_OPENAI;
 * - UPSTREAM_BASE_URL for every provider at once (development and tests point
 *   everything at the simulator).
 * The more specific variable wins.
 */
export interface Upstream {
  provider: string;
  /** scheme://host:port, never with credentials: the pool key and the only part that may be logged. */
  origin: string;
  /** Path of chat completions under the base URL, with the base URL's query, e.g. /v1/chat/completions. */
  chatCompletionsPath: string;
  /** The origin's host and port (the scheme's when it names none): a traced call's `server.*` attributes. */
  server: { address: string; port: number };
}

export const UPSTREAM_BASE_URL = 'UPSTREAM_BASE_URL';

export function baseUrlVariable(provider: string): string {
  return `PROVIDER_BASE_URL_${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function parseBaseUrl(value: string, source: string): { origin: string; path: string; search: string; server: Upstream['server'] } | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${source}: not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${source}: must be an http or https URL`;
  if (url.username || url.password) return `${source}: must not carry credentials; provider keys are sent as a bearer token`;
  const server = { address: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, ''), search: url.search, server };
}

export function resolveUpstreams(
  providers: Readonly<Record<string, { base_url: string }>>,
  env: Readonly<Record<string, string | undefined>> = {},
): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  const problems: string[] = [];
  for (const [provider, { base_url: catalogUrl }] of Object.entries(providers)) {
    const specific = baseUrlVariable(provider);
    const [source, value] = env[specific]
      ? [specific, env[specific]]
      : env[UPSTREAM_BASE_URL]
        ? [UPSTREAM_BASE_URL, env[UPSTREAM_BASE_URL]]
        : [`catalog provider ${provider} base_url`, catalogUrl];
    const parsed = parseBaseUrl(value, source);
    if (typeof parsed === 'string') {
      problems.push(parsed);
      continue;
    }
    upstreams.set(provider, { provider, origin: parsed.origin, chatCompletionsPath: `${parsed.path}/chat/completions${parsed.search}`, server: parsed.server });
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return upstreams;
}

import { TEST_CATALOG_PATH } from './support/catalog';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CatalogFile } from '@gateway/lib/catalog';
import type OpenAI from 'openai';
import { eventually } from './support/eventually';
import { startE2e, type E2e } from './support/harness';
import { expectApiError, failure } from './support/headers';

/**
 * Edge follows its catalog file as router, pricing and the ledger follow
 * theirs (deploy/README.md, "The catalog"): the models' output maxima that
 * bound a call's worst case, the plans' meters and the providers' key
 * variables apply to the next call, without a restart of edge.
 */
jest.setTimeout(90_000);

/** edge's own copy of the test catalog, which this suite changes; the other services keep theirs. */
const edgeCatalogPath = join(mkdtempSync(join(tmpdir(), 'edge-catalog-')), 'catalog.json');
const catalog = JSON.parse(readFileSync(TEST_CATALOG_PATH, 'utf8')) as CatalogFile;
const writeEdgeCatalog = (file: CatalogFile) => writeFileSync(edgeCatalogPath, JSON.stringify(file));
writeEdgeCatalog(catalog);

let e2e: E2e;

beforeAll(async () => {
  e2e = await startE2e('e2e_edge_catalog', { serviceEnv: { edge: { CATALOG_PATH: edgeCatalogPath } } });
});

afterAll(() => e2e?.close());

const poem = { model: 'sim-small', messages: [{ role: 'user' as const, content: 'Write a long poem.' }] };

it('bounds a call by the output maximum its catalog now gives the model, without a restart of edge', async () => {
  const tiny = e2e.client((await e2e.seed({ plan: 'e2e_spend_tiny' })).key);
  const refusal = async () => expectApiError(await failure(tiny.chat.completions.create(poem)), 402, 'quota').body.message;
  const shipped = catalog.models.find(({ id }) => id === 'sim-small')?.max_output_tokens;
  expect(await refusal()).toContain(` and ${shipped} output tokens)`);

  const edgePid = e2e.stack.services.edge.pid;
  writeEdgeCatalog({ ...catalog, models: catalog.models.map((model) => (model.id === 'sim-small' ? { ...model, max_output_tokens: 1234 } : model)) });
  await eventually(async () => ((await refusal()).includes(' and 1234 output tokens)') ? true : undefined), 'the new output maximum in edge');
  expect(e2e.stack.services.edge.pid).toBe(edgePid);
});

it('calls a provider with the key its catalog now names, and says when that key is not set', async () => {
  const caller: OpenAI = e2e.client((await e2e.seed({ plan: 'simulated' })).key);
  const simulator = catalog.providers.simulator;
  if (!simulator) throw new Error('the test catalog has the simulator provider');
  writeEdgeCatalog({ ...catalog, providers: { ...catalog.providers, simulator: { ...simulator, api_key_env: 'E2E_UNSET_SIMULATOR_KEY' } } });
  const refused = await eventually(
    () =>
      caller.chat.completions.create(poem).then(
        () => undefined,
        (error: unknown) => error,
      ),
    'a refusal for the unset key',
  );
  expect(expectApiError(refused, 503, 'internal').body.message).toBe('The gateway has no key configured for provider "simulator".');

  writeEdgeCatalog(catalog);
  const answer = await eventually(async () => caller.chat.completions.create(poem).catch(() => undefined), 'an answer with the key set again');
  expect(answer.choices[0]?.message.content).toEqual(expect.any(String));
});

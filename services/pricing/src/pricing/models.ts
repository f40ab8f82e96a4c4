import type { Catalog } from '@gateway/lib/catalog';
import type { ListModelsResponse } from '@gateway/proto/gen/gateway/pricing/v1/pricing';

/** The catalog as ListModels returns it, in the file's order; built once, the catalog never changes while running. */
export function listModels(catalog: Catalog): ListModelsResponse {
  return {
    models: [...catalog.models.values()].map((model) => ({
      id: model.id,
      provider: model.provider,
      tier: model.tier,
      inputMicrosPerMillionTokens: model.inputMicrosPerMillion.toString(),
      outputMicrosPerMillionTokens: model.outputMicrosPerMillion.toString(),
      contextWindow: model.contextWindow,
      unsupportedParams: [...model.unsupportedParams],
    })),
    pricesAsOf: catalog.pricesAsOf,
  };
}

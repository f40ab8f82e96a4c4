import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '@gateway/lib/errors';
import { formatUsd } from '@gateway/lib/money';
import type { Model } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { requestIdOf } from '../http/locals';
import type { GatewayDeps } from './deps';
import { gatewayHeaders, writeGatewayHeaders, type HeaderFacts } from './headers';
import { authenticateGatewayCall, modeName, principalName, requireScope } from './principal';

/** The catalog, for a caller with the `inference` scope; the answer's headers name who asked. */
async function readCatalog(deps: GatewayDeps, req: Request, res: Response) {
  const facts: HeaderFacts = { requestId: requestIdOf(res) };
  const principal = await authenticateGatewayCall(deps, req, res);
  writeGatewayHeaders(res, gatewayHeaders({ ...facts, principal: principalName(principal), mode: modeName(principal) }));
  requireScope(principal, 'inference');
  return deps.pricing.listModels({});
}

/** GET /api/gateway/v1/models: the catalog in the OpenAI list shape, plus `x_service` per model. */
export function listModels(deps: GatewayDeps): RequestHandler {
  return async (req, res) => {
    const catalog = await readCatalog(deps, req, res);
    res.json({ object: 'list', data: catalog.models.map((model) => modelEntry(model, catalog.pricesAsOf)) });
  };
}

/** GET /api/gateway/v1/models/{id}: one model of the catalog, as `openai.models.retrieve(id)` reads it. */
export function retrieveModel(deps: GatewayDeps): RequestHandler {
  return async (req, res) => {
    const catalog = await readCatalog(deps, req, res);
    const id = String(req.params.id ?? '');
    const model = catalog.models.find((candidate) => candidate.id === id);
    if (!model) throw new DomainError('not_found', `No model "${id}" in the catalog: GET /api/gateway/v1/models lists them.`, { field: 'model' });
    res.json(modelEntry(model, catalog.pricesAsOf));
  };
}

function modelEntry(model: Model, pricesAsOf: string): Record<string, unknown> {
  return {
    id: model.id,
    object: 'model',
    created: 0,
    owned_by: model.provider,
    x_service: {
      tier: model.tier,
      input_usd_per_million_tokens: formatUsd(BigInt(model.inputMicrosPerMillionTokens)),
      output_usd_per_million_tokens: formatUsd(BigInt(model.outputMicrosPerMillionTokens)),
      context_window: model.contextWindow,
      unsupported_params: model.unsupportedParams,
      prices_as_of: pricesAsOf,
    },
  };
}

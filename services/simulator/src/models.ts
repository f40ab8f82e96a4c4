import type { Catalog } from '@gateway/lib/catalog';

/**
 * GET /v1/models: every catalog model, in OpenAI's list shape. The simulator
 * answers for any model name, so a gateway can point every provider at it.
 */
const CREATED = Date.UTC(2025, 0, 1) / 1000;

export function modelList(catalog: Catalog): string {
  const data = [...catalog.models.values()].map((model) => ({ id: model.id, object: 'model', created: CREATED, owned_by: model.provider }));
  return JSON.stringify({ object: 'list', data });
}

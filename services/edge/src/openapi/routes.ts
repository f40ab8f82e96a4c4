import type { Express } from 'express';
import { OPENAPI_PATH } from './account-operations';
import { openApiDocument } from './document';

/** `GET /api/openapi.json`: the document, built once when the app is. */
export function registerOpenApiRoute(app: Express): void {
  const document = openApiDocument();
  app.get(OPENAPI_PATH, (_req, res) => {
    res.json(document);
  });
}

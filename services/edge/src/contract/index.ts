/**
 * The JSON bodies of edge's identity, Console and usage APIs as zod schemas:
 * the routes parse requests with them and type their answers by them, and
 * the Console (services/console) imports their types, so neither side can
 * drift from the other. Only zod is imported here, nothing of Node.
 */
export * from './agents';
export * from './errors';
export * from './identity';
export * from './keys';
export * from './quota';
export * from './usage';

export * from './scoring';
export * from './router';
export { AUTO_MODEL, type RouteReason, type ModelRequest } from './choose';

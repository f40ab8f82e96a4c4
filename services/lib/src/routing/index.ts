export * from './scoring';
export * from './router';
export * from './policy';
export * from './policy-message';
export * from './route-message';
export { AUTO_MODEL, type RouteReason, type ModelRequest } from './choose';
export * from './decisions-metric';

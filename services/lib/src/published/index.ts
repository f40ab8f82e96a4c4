export * from './source';
export * from './held';

export * from './catalog';
export * from './schema';

export * from './client';
export * from './health';
export * from './server';
export * from './status';
export * from './methods';

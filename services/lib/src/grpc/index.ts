export * from './client';
export * from './health';
export * from './in-process';
export * from './health-probe';
export * from './server';
export * from './status';
export * from './methods';

export * from './catalog';
export * from './schema';
export * from './worst-case';
export * from './watch';

export * from './connect';
export * from './migrate';

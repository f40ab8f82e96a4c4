export * from './cost';
export * from './price';
export * from './price-book';
export * from './price-list-message';

export * from './connect';
export * from './migrate';
export * from './pglite-thread';

export { PoolManager, type PoolManagerOptions, type DesiredSpecs } from './pool-manager.js';
export { type Clock, type TimerHandle } from './clock.js';
export type { CallOptions, LogEntry, LogFn } from './types.js';
export { MetadataStore, type SavedList, type SavedMetadata } from './metadata-store.js';
export { PoolGoneError } from './messages.js';
export { ABANDONED_CALL_KEY } from './instance.js';
export { earliestFresh, type CachedList } from './list-freshness.js';

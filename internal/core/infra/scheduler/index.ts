export { PoolManager } from './pool-manager.js';

export { MetadataStore, type SavedList } from './metadata-store.js';
export { PoolGoneError } from './messages.js';
export { ABANDONED_CALL_KEY } from './instance.js';
export { earliestFresh, type CachedList } from './list-freshness.js';

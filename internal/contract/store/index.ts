/** The profile store: loading, validation, expansion, hot reload and diffs. */
export { loadStore, validateStoreDir, STORE_DIR_VARIABLE } from './load-store.js';
export { watchStore, type StoreWatcher, type WatchOptions } from './watch-store.js';
export { diffStores, specsByFingerprint, type SpecUse } from './diff-stores.js';
export { redactSpec, REDACTED, storeSecrets, useStoreSecrets } from './redact.js';
export { scaffoldStore } from './scaffold.js';
export { callersSchema, profileSchema, runtimeSchema, writeStoreSchemas } from './store-schema.js';
export { inputEnvName } from './input-resolver.js';
export type { LoadOptions, LoadResult, StoreDiff } from './types.js';

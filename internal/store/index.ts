/** The profile store's format: loading, validation, expansion, schemas (the core watches and diffs it: core/infra/catalog). */
export { loadStore } from './load-store.js';
export { validateStore, validateStoreDir } from './validate-store.js';
export { redactSpec, REDACTED, useStoreSecrets } from './redact.js';
export { scaffoldStore } from './scaffold.js';
export { profileSchema, runtimeSchema, writeStoreSchemas } from './store-schema.js';
export { inputEnvName } from './input-resolver.js';
export type { LoadResult } from './types.js';

/** The shared A2C-SMCP protocol module: event names, payload types, error codes, validators. Pure, no I/O. */
export * from './events.js';
export * from './error-codes.js';
export * from './types.js';
export * from './validate.js';

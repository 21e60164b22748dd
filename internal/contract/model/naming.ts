import { createHash } from 'node:crypto';
import { McpdError } from '../../shared/errors.js';
import type { NamespacePolicy } from './profile.js';
import type { ToolMeta } from './spec.js';

/**
 * Exposed names use only `[a-zA-Z0-9_-]`: the intersection of what the major model APIs accept for
 * function names (they reject `.`, `/`, spaces …, which MCP itself allows). Any other character
 * becomes `_`. The separator is sanitised like the rest, so `separator: "."` ends up as `_`.
 */
const EXPOSED_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;
const OUTSIDE_CHARSET = /[^a-zA-Z0-9_-]/g;

/** `-` + 8 hex characters appended to shortened names. */
const HASH_SUFFIX_LENGTH = 9;
/** Below this budget a shortened name would be nothing but its hash. */
export const MIN_NAME_BUDGET = 16;

// Declared beside the tool types (which the dashboard's page also compiles against, without Node).
export type { ListingProblem } from './tool.js';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function sanitizeName(name: string): string {
  const clean = name.replace(OUTSIDE_CHARSET, '_');
  return clean === '' ? '_' : clean;
}

function checkBudget(maxLength: number): void {
  if (!Number.isInteger(maxLength) || maxLength < MIN_NAME_BUDGET) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `namespace.maxLength is ${maxLength}; it must be an integer of at least ${MIN_NAME_BUDGET} so shortened names keep a readable head`,
    );
  }
}

/** Keeps a readable head and appends `-` + 8 hex of sha256(`hashInput`); the result is ≤ maxLength. */
export function withHashSuffix(name: string, hashInput: string, maxLength: number): string {
  checkBudget(maxLength);
  const head = name.slice(0, maxLength - HASH_SUFFIX_LENGTH);
  return `${head}-${sha256Hex(hashInput).slice(0, HASH_SUFFIX_LENGTH - 1)}`;
}

/**
 * Sanitises `full` and, when it is over budget, shortens it deterministically. The hash is taken over
 * the unsanitised name, so two long names that differ only in characters outside the charset still
 * get different suffixes.
 */
export function fitName(full: string, maxLength: number): string {
  checkBudget(maxLength);
  const clean = sanitizeName(full);
  return clean.length <= maxLength ? clean : withHashSuffix(clean, full, maxLength);
}

/** Why `alias` cannot be used as an exposed name, or undefined when it can. */
export function aliasProblem(alias: string, maxLength: number): string | undefined {
  if (alias === '') return 'alias is empty';
  if (!EXPOSED_NAME_PATTERN.test(alias)) {
    return `alias "${alias}" contains characters outside [a-zA-Z0-9_-], which model APIs reject`;
  }
  if (alias.length > maxLength) {
    return `alias "${alias}" is ${alias.length} characters long; the limit is ${maxLength}`;
  }
  return undefined;
}

/** The characters an exposed name may use: the limit minus what the client's own prefix needs. */
export function nameBudget(policy: NamespacePolicy): number {
  return policy.maxLength - (policy.reserve ?? 0);
}

/** 8 hex characters standing for a server name shortened in a prefix. */
const SERVER_HASH_LENGTH = 8;

/**
 * `<server><separator><tool>`, sanitised and within budget, regardless of the namespace mode. Over budget,
 * the server prefix gives way first: it becomes a readable head of the server name plus `-` and 8 hex of
 * sha256(server) (just the hash when no head fits), so the tool name — what a model reads to pick a tool —
 * stays whole, and every tool of one server keeps the same short prefix. Only a tool name too long even
 * for that is cut, with a hash of the whole name (fitName).
 */
export function prefixedName(server: string, tool: string, policy: NamespacePolicy): string {
  const budget = nameBudget(policy);
  checkBudget(budget);
  const full = `${server}${policy.separator}${tool}`;
  const clean = sanitizeName(full);
  if (clean.length <= budget) return clean;
  const separator = policy.separator.replace(OUTSIDE_CHARSET, '_');
  const toolPart = sanitizeName(tool);
  const room = budget - separator.length - toolPart.length;
  if (room < SERVER_HASH_LENGTH) return withHashSuffix(clean, full, budget);
  const hash = sha256Hex(server).slice(0, SERVER_HASH_LENGTH);
  const head = sanitizeName(server).slice(0, Math.max(0, room - SERVER_HASH_LENGTH - 1));
  return `${head ? `${head}-` : ''}${hash}${separator}${toolPart}`;
}

export interface NameChoice {
  name: string;
  source: 'alias' | 'prefixed' | 'raw';
  /** Set when a configured alias was rejected; `name` is then the namespaced fallback. */
  aliasRejected?: string;
}

/** The name a tool asks for before collisions among tools are resolved. */
export function chooseToolName(server: string, tool: string, policy: NamespacePolicy, meta?: ToolMeta): NameChoice {
  const fallback: NameChoice =
    policy.mode === 'never'
      ? { name: fitName(tool, nameBudget(policy)), source: 'raw' }
      : { name: prefixedName(server, tool, policy), source: 'prefixed' };
  if (meta?.alias === undefined) return fallback;
  const problem = aliasProblem(meta.alias, nameBudget(policy));
  return problem ? { ...fallback, aliasRejected: problem } : { name: meta.alias, source: 'alias' };
}

/**
 * The exposed name of one tool in isolation. An invalid alias falls back to the namespaced name
 * (use `chooseToolName` to learn that it was rejected). Only the per-tool alias counts: a default
 * alias would give every tool of a server the same name.
 */
export function exposedToolName(server: string, tool: string, policy: NamespacePolicy, meta?: ToolMeta): string {
  return chooseToolName(server, tool, policy, meta).name;
}

/** Code-unit order: the same on every machine and locale, which keeps snapshots reproducible. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

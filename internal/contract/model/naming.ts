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

/** The separator as it appears in names (sanitised like the rest; an empty one stays empty). */
function separatorOf(policy: NamespacePolicy): string {
  return policy.separator.replace(OUTSIDE_CHARSET, '_');
}

/** 8 hex characters standing for a server name shortened in a prefix. */
const SERVER_HASH_LENGTH = 8;

/**
 * The name length a server's one prefix is fitted to: its longest name that can stay whole behind the bare
 * 8-hex hash. A longer name is cut anyway (with a hash of its own), so it does not shorten the prefix of
 * every other name of the server; it only needs room behind the prefix for a head and its hash.
 */
export function prefixFitLength(names: Iterable<string>, policy: NamespacePolicy): number {
  const wholeAtMost = nameBudget(policy) - separatorOf(policy).length - SERVER_HASH_LENGTH;
  let longest = 0;
  let cut = false;
  for (const n of names) {
    if (n.length <= wholeAtMost) longest = Math.max(longest, n.length);
    else cut = true;
  }
  return cut ? Math.max(longest, HASH_SUFFIX_LENGTH + 1) : longest;
}

/**
 * The prefix every name of one server gets (before the separator), from the server's name and its
 * prefixFitLength: the whole (sanitised) server name when a name of that length fits behind it or when it
 * is no longer than the hash, else a readable head plus `-` and 8 hex of sha256(server), short enough that
 * it does (just the hash when no head fits). One prefix per server and list, so a model sees one server
 * under one name; it changes only when that length changes while the whole server name does not fit. A
 * head ending in `-` or `_` loses it, so a cut never leaves `--` or `_-` in the prefix.
 */
export function serverPrefix(server: string, fitLength: number, policy: NamespacePolicy): string {
  const budget = nameBudget(policy);
  checkBudget(budget);
  const whole = sanitizeName(server);
  const room = budget - separatorOf(policy).length - fitLength;
  // A name no longer than the hash is never worse than it: the same room or less, and readable.
  if (whole.length <= room || whole.length <= SERVER_HASH_LENGTH) return whole;
  const hash = sha256Hex(server).slice(0, SERVER_HASH_LENGTH);
  const head = whole.slice(0, Math.max(0, room - SERVER_HASH_LENGTH - 1)).replace(/[-_]+$/, '');
  return head ? `${head}-${hash}` : hash;
}

/**
 * `<prefix><separator><tool>`, sanitised and within budget, regardless of the namespace mode. `fitLength`
 * comes from all the names the server lists beside this one (prefixFitLength; default: this name alone),
 * so every name of the server shares one prefix and the tool name — what a model reads to pick a tool —
 * stays whole. Only a tool name too long even behind the bare hash is cut, with a hash of the whole name.
 */
export function prefixedName(server: string, tool: string, policy: NamespacePolicy, fitLength = prefixFitLength([tool], policy)): string {
  const budget = nameBudget(policy);
  const name = `${serverPrefix(server, fitLength, policy)}${separatorOf(policy)}${sanitizeName(tool)}`;
  return name.length <= budget ? name : withHashSuffix(name, `${server}${policy.separator}${tool}`, budget);
}

export interface NameChoice {
  name: string;
  source: 'alias' | 'prefixed' | 'raw';
  /** Set when a configured alias was rejected; `name` is then the namespaced fallback. */
  aliasRejected?: string;
}

/** The name a tool asks for before collisions among tools are resolved (`fitLength`: see prefixedName). */
export function chooseToolName(server: string, tool: string, policy: NamespacePolicy, meta?: ToolMeta, fitLength?: number): NameChoice {
  const fallback: NameChoice =
    policy.mode === 'never'
      ? { name: fitName(tool, nameBudget(policy)), source: 'raw' }
      : { name: prefixedName(server, tool, policy, fitLength), source: 'prefixed' };
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

import { isMap, isScalar, isSeq, type Scalar } from 'yaml';
import { deref, describeNode, isNull, join, report, whereOf, type LocStr, type Source, type YNode } from './source.js';
import { closest } from '../contract/model/did-you-mean.js';
import { MAX_DURATION_SECONDS } from '../shared/timer-limit.js';

export interface Entry {
  key: string;
  keyNode: Scalar;
  value: YNode;
  field: string;
}

/** The pairs of a mapping with string keys; anything else is reported and skipped. */
export function mapEntries(src: Source, node: YNode, field: string, what = 'a mapping'): Entry[] | undefined {
  if (isNull(node)) return [];
  if (!isMap(node)) {
    report(src, node, field, `must be ${what}, got ${describeNode(node)}`, `write it as "key: value" lines`);
    return undefined;
  }
  const out: Entry[] = [];
  for (const pair of node.items) {
    const k = pair.key;
    if (!isScalar(k) || (typeof k.value !== 'string' && typeof k.value !== 'number')) {
      report(src, k as YNode, field, 'keys must be plain names', 'use a simple name as the key');
      continue;
    }
    const key = String(k.value);
    out.push({ key, keyNode: k, value: deref(src, pair.value), field: join(field, key) });
  }
  return out;
}

/** Reports every key not in `known`, suggesting the closest known one. */
export function checkKeys(src: Source, entries: Entry[], known: readonly string[], what: string): void {
  for (const e of entries) {
    if (known.includes(e.key)) continue;
    const guess = closest(e.key, known);
    report(
      src,
      e.keyNode,
      e.field,
      `unknown key "${e.key}" in ${what}`,
      guess ? `did you mean "${guess}"?` : `known keys: ${known.join(', ')}`,
    );
  }
}

export function readString(src: Source, node: YNode, field: string, nonEmpty = false): string | undefined {
  if (!isScalar(node) || typeof node.value !== 'string') {
    report(src, node, field, `must be a string, got ${describeNode(node)}`, 'quote the value if needed');
    return undefined;
  }
  if (nonEmpty && node.value.trim() === '') {
    report(src, node, field, 'must not be empty', 'give it a value or remove the key');
    return undefined;
  }
  return node.value;
}

export function readLocString(src: Source, node: YNode, field: string, nonEmpty = false): LocStr | undefined {
  const text = readString(src, node, field, nonEmpty);
  return text === undefined ? undefined : { text, where: whereOf(src, node, field) };
}

export function readBool(src: Source, node: YNode, field: string): boolean | undefined {
  if (isScalar(node) && typeof node.value === 'boolean') return node.value;
  report(src, node, field, `must be true or false, got ${describeNode(node)}`);
  return undefined;
}

export interface NumberRule {
  integer: boolean;
  min: number;
  /** true: value must be > min; false: >= min. */
  exclusive?: boolean;
  /** Inclusive upper bound; `maxWhy` says where it comes from. */
  max?: number;
  maxWhy?: string;
}

/** A duration in seconds: bounded by the longest timer Node can run (a longer one would fire at once). */
export function durationRule(min: number, exclusive = false): NumberRule {
  return { integer: false, min, exclusive, max: MAX_DURATION_SECONDS, maxWhy: 'about 24.8 days, the longest timer Node.js can run' };
}

export function readNumber(src: Source, node: YNode, field: string, rule: NumberRule): number | undefined {
  const kind = rule.integer ? 'a whole number' : 'a number';
  const bound = `${rule.exclusive ? '>' : '≥'} ${rule.min}`;
  if (!isScalar(node) || typeof node.value !== 'number' || !Number.isFinite(node.value)) {
    report(src, node, field, `must be ${kind} ${bound}, got ${describeNode(node)}`);
    return undefined;
  }
  const v = node.value;
  if (rule.integer && !Number.isInteger(v)) {
    report(src, node, field, `must be a whole number, got ${v}`);
    return undefined;
  }
  if (rule.exclusive ? v <= rule.min : v < rule.min) {
    report(src, node, field, `must be ${bound}, got ${v}`, `use a value ${bound}`);
    return undefined;
  }
  if (rule.max !== undefined && v > rule.max) {
    const why = rule.maxWhy ? ` (${rule.maxWhy})` : '';
    report(src, node, field, `must be ≤ ${rule.max}${why}, got ${v}`, `use a value between ${rule.min} and ${rule.max}`);
    return undefined;
  }
  return v;
}

export function readEnum<T extends string>(src: Source, node: YNode, field: string, allowed: readonly T[]): T | undefined {
  if (isScalar(node) && typeof node.value === 'string' && (allowed as readonly string[]).includes(node.value)) {
    return node.value as T;
  }
  const got = isScalar(node) ? String(node.value) : '';
  const guess = closest(got, allowed);
  report(
    src,
    node,
    field,
    `must be one of ${allowed.join(' | ')}, got ${describeNode(node)}`,
    guess ? `did you mean "${guess}"?` : 'use one of the listed values',
  );
  return undefined;
}

export function readStringList(src: Source, node: YNode, field: string): LocStr[] | undefined {
  if (!isSeq(node)) {
    report(src, node, field, `must be a list of strings, got ${describeNode(node)}`, 'write it as [a, b] or as "- a" lines');
    return undefined;
  }
  const out: LocStr[] = [];
  let ok = true;
  node.items.forEach((item, i) => {
    const s = readLocString(src, deref(src, item), join(field, i));
    if (s) out.push(s);
    else ok = false;
  });
  return ok ? out : undefined;
}

/** Plain numbers and booleans are taken as written (`PORT: 8080` → "8080"). */
function scalarText(node: YNode): string | undefined {
  if (!isScalar(node)) return undefined;
  if (typeof node.value === 'string') return node.value;
  if (typeof node.value === 'number' || typeof node.value === 'boolean') return node.source ?? String(node.value);
  return undefined;
}

export function readStringMap(src: Source, node: YNode, field: string): Array<[string, LocStr]> | undefined {
  const entries = mapEntries(src, node, field, 'a mapping of names to strings');
  if (!entries) return undefined;
  const out: Array<[string, LocStr]> = [];
  for (const e of entries) {
    const text = scalarText(e.value);
    if (text === undefined) {
      report(src, e.value, e.field, `must be a string, got ${describeNode(e.value)}`, 'quote the value');
      continue;
    }
    out.push([e.key, { text, where: whereOf(src, e.value, e.field) }]);
  }
  return out;
}

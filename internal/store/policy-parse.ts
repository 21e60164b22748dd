import { isMap, isScalar, isSeq, Scalar } from 'yaml';
import { checkKeys, mapEntries, readEnum, readString, readStringList, type Entry } from './fields.js';
import { compileCondition, isCelProblem } from './policy-cel.js';
import type { PolicyCondition, PolicyRate, PolicyRule } from '../contract/model/policy.js';
import { deref, describeNode, join, report, whereOf, type Source, type YNode } from './source.js';

/** The keys of one rule of `policies:` (names used by checks outside the repository: keep them). */
export const POLICY_KEYS = ['name', 'callers', 'effect', 'tools', 'resources', 'prompts', 'when', 'rate'] as const;

const UNIT_MS = { second: 1000, minute: 60_000, hour: 3_600_000 } as const;

/** `policies:` of callers.yaml: the rules in order, each `when` compiled (a typo is reported where it is). */
function parsePolicies(src: Source, node: YNode, field = 'policies'): PolicyRule[] {
  if (!isSeq(node)) {
    report(src, node, field, `must be a list of rules, got ${describeNode(node)}`, 'write each rule as "- name: …" lines');
    return [];
  }
  const out: PolicyRule[] = [];
  const names = new Map<string, number>();
  node.items.forEach((item, i) => {
    const rule = parseRule(src, item as YNode, join(field, i));
    if (!rule) return;
    const first = names.get(rule.name);
    if (first !== undefined) {
      report(
        src,
        item as YNode,
        join(field, i),
        `a rule named "${rule.name}" is already defined at line ${first}`,
        'give every rule its own name',
      );
      return;
    }
    names.set(rule.name, rule.where.line);
    out.push(rule);
  });
  return out;
}

function parseRule(src: Source, node: YNode, field: string): PolicyRule | undefined {
  const entries = mapEntries(src, node, field, 'a rule: a mapping with name, effect and what it covers');
  if (!entries) return undefined;
  const before = src.issues.length;
  checkKeys(src, entries, POLICY_KEYS, 'a policy rule');
  const get = (k: string): Entry | undefined => entries.find((e) => e.key === k);
  const nameE = get('name');
  const effectE = get('effect');
  if (!nameE || !effectE) {
    const missing = [!nameE && 'name', !effectE && 'effect'].filter(Boolean).join(' and ');
    report(src, node, field, `the rule has no ${missing}`, 'every rule needs a name and an effect (deny or allow)');
    return undefined;
  }
  const name = readString(src, nameE.value, nameE.field, true);
  const effect = readEnum(src, effectE.value, effectE.field, ['deny', 'allow'] as const);
  const globs = (k: string) => {
    const e = get(k);
    return e ? readStringList(src, e.value, e.field)?.map((s) => s.text) : undefined;
  };
  const callers = globs('callers') ?? [];
  const tools = globs('tools');
  const resources = globs('resources');
  const prompts = globs('prompts');
  const whenE = get('when');
  const when = whenE && readWhen(src, whenE);
  const rateE = get('rate');
  const rate = rateE && readRate(src, rateE);
  if (rate && effect === 'deny')
    report(
      src,
      rateE.value,
      rateE.field,
      'a deny rule refuses every call it matches: a rate belongs on an allow rule',
      'write effect: allow',
    );
  if (src.issues.length > before || name === undefined || effect === undefined) return undefined;
  return {
    name,
    callers,
    effect,
    ...(tools ? { tools } : {}),
    ...(resources ? { resources } : {}),
    ...(prompts ? { prompts } : {}),
    ...(when ? { when } : {}),
    ...(rate ? { rate } : {}),
    where: whereOf(src, node, field),
  };
}

function readWhen(src: Source, e: Entry): PolicyCondition | undefined {
  const text = readString(src, e.value, e.field, true);
  if (text === undefined) return undefined;
  const c = compileCondition(text);
  if (!isCelProblem(c)) return c;
  const at = whereOf(src, e.value, e.field);
  // On one line the column points at the character; a block scalar's lines start elsewhere.
  const quoted = isScalar(e.value) && (e.value.type === Scalar.QUOTE_DOUBLE || e.value.type === Scalar.QUOTE_SINGLE);
  const oneLine = !text.slice(0, c.offset).includes('\n') && isScalar(e.value) && (quoted || e.value.type === Scalar.PLAIN);
  const caret = `${text.slice(0, c.offset)}⟨here⟩${text.slice(c.offset)}`;
  src.issues.push({
    file: src.file,
    line: at.line,
    column: oneLine ? at.column + c.offset + (quoted ? 1 : 0) : at.column,
    field: e.field,
    message: `${c.message} at position ${c.offset + 1} of the expression: ${JSON.stringify(caret)}`,
    hint: 'fix the CEL expression (docs/policy.md lists the variables and functions)',
  });
  return undefined;
}

function readRate(src: Source, e: Entry): PolicyRate | undefined {
  const text = readString(src, e.value, e.field, true);
  if (text === undefined) return undefined;
  const m = /^\s*(\d+)\s*\/\s*(second|minute|hour)s?\s*$/.exec(text);
  const tokens = m ? Number(m[1]) : 0;
  if (!m || tokens < 1 || !Number.isSafeInteger(tokens)) {
    report(
      src,
      e.value,
      e.field,
      `must be "N/second", "N/minute" or "N/hour" with N ≥ 1, got ${JSON.stringify(text)}`,
      'write for example rate: "10/minute"',
    );
    return undefined;
  }
  return { text, tokens, perMs: UNIT_MS[m[2] as keyof typeof UNIT_MS] };
}

/** The `policies:` of a callers.yaml already read (none when the key is absent). */
export function policiesOf(src: Source): PolicyRule[] {
  const root = src.doc.contents as YNode;
  if (src.broken || !isMap(root)) return [];
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'policies');
  return pair ? parsePolicies(src, deref(src, pair.value)) : [];
}

import type { InputDef } from '../contract/model/profile.js';
import { checkKeys, mapEntries, readBool, readEnum, readString, readStringList, readStringMap, type Entry } from './fields.js';
import { deref, describeNode, isNull, join, report, whereOf, type Source, type Where, type YNode } from './source.js';
import { isSeq } from 'yaml';

export const INPUT_TYPES = ['promptString', 'pickString', 'command'] as const;
type InputType = (typeof INPUT_TYPES)[number];

export const KEYS_BY_TYPE: Record<InputType, readonly string[]> = {
  promptString: ['id', 'type', 'description', 'default', 'password'],
  pickString: ['id', 'type', 'description', 'options', 'default'],
  command: ['id', 'type', 'description', 'command', 'args'],
};

const INPUT_ID_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** An input definition plus where it was written, for messages about it. */
export interface LocatedInput {
  def: InputDef;
  where: Where;
}

function checkTypedKeys(src: Source, entries: Entry[], type: InputType): void {
  const allowed = KEYS_BY_TYPE[type];
  const anyType = [...new Set(Object.values(KEYS_BY_TYPE).flat())];
  const misplaced = entries.filter((e) => anyType.includes(e.key) && !allowed.includes(e.key));
  for (const e of misplaced) {
    const owner = INPUT_TYPES.filter((t) => KEYS_BY_TYPE[t].includes(e.key)).join(' / ');
    report(
      src,
      e.keyNode,
      e.field,
      `"${e.key}" does not apply to a ${type} input (it belongs to ${owner})`,
      `remove it, or change type; ${type} accepts: ${allowed.join(', ')}`,
    );
  }
  checkKeys(
    src,
    entries.filter((e) => !anyType.includes(e.key)),
    allowed,
    `a ${type} input`,
  );
}

function build(src: Source, byKey: Map<string, Entry>, id: string, type: InputType, node: YNode, field: string): InputDef | undefined {
  const str = (k: string, nonEmpty = false): string | undefined => {
    const e = byKey.get(k);
    return e ? readString(src, e.value, e.field, nonEmpty) : undefined;
  };
  const description = str('description');
  const base = { id, ...(description !== undefined ? { description } : {}) };
  if (type === 'promptString') {
    const pw = byKey.get('password');
    const password = pw ? readBool(src, pw.value, pw.field) : undefined;
    const dflt = str('default');
    return { ...base, type, ...(dflt !== undefined ? { default: dflt } : {}), ...(password ? { password } : {}) };
  }
  if (type === 'pickString') {
    const optEntry = byKey.get('options');
    if (!optEntry) {
      report(src, node, join(field, 'options'), `pickString input "${id}" has no options`, 'add options: [a, b, …]');
      return undefined;
    }
    const options = (readStringList(src, optEntry.value, optEntry.field) ?? []).map((o) => o.text);
    if (isSeq(optEntry.value) && optEntry.value.items.length === 0) {
      report(src, optEntry.value, optEntry.field, 'options must not be empty', 'list at least one choice');
    }
    const dflt = str('default');
    const dEntry = byKey.get('default');
    if (dflt !== undefined && dEntry && !options.includes(dflt)) {
      report(src, dEntry.value, dEntry.field, `default "${dflt}" is not one of the options`, `use one of: ${options.join(', ')}`);
    }
    return { ...base, type, options, ...(dflt !== undefined ? { default: dflt } : {}) };
  }
  const cmdEntry = byKey.get('command');
  if (!cmdEntry) {
    report(src, node, join(field, 'command'), `command input "${id}" has no command`, 'add command: <program and arguments>');
    return undefined;
  }
  const command = readString(src, cmdEntry.value, cmdEntry.field, true);
  const argsEntry = byKey.get('args');
  const args = argsEntry ? readStringMap(src, argsEntry.value, argsEntry.field) : undefined;
  if (command === undefined) return undefined;
  return { ...base, type, command, ...(args ? { args: Object.fromEntries(args.map(([k, v]) => [k, v.text])) } : {}) };
}

function parseInput(src: Source, node: YNode, field: string): LocatedInput | undefined {
  const entries = mapEntries(src, node, field, 'a mapping (one input)');
  if (!entries) return undefined;
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const idEntry = byKey.get('id');
  const typeEntry = byKey.get('type');
  if (!idEntry || !typeEntry) {
    report(
      src,
      node,
      field,
      `input has no ${!idEntry ? 'id' : 'type'}`,
      `every input needs id: <name> and type: ${INPUT_TYPES.join(' | ')}`,
    );
    return undefined;
  }
  const id = readString(src, idEntry.value, idEntry.field, true);
  if (id !== undefined && !INPUT_ID_RE.test(id)) {
    report(src, idEntry.value, idEntry.field, `invalid input id "${id}"`, 'use letters, digits, ".", "-" and "_"');
  }
  const type = readEnum(src, typeEntry.value, typeEntry.field, INPUT_TYPES);
  if (id === undefined || type === undefined) return undefined;
  checkTypedKeys(src, entries, type);
  const def = build(src, byKey, id, type, node, field);
  return def ? { def, where: whereOf(src, idEntry.value, idEntry.field) } : undefined;
}

export function parseInputs(src: Source, node: YNode, field: string): LocatedInput[] {
  if (isNull(node)) return [];
  if (!isSeq(node)) {
    report(src, node, field, `must be a list of inputs, got ${describeNode(node)}`, 'write each input as a "- id: …" item');
    return [];
  }
  const out: LocatedInput[] = [];
  const seen = new Map<string, number>();
  node.items.forEach((item, i) => {
    const f = join(field, i);
    const input = parseInput(src, deref(src, item), f);
    if (!input) return;
    const first = seen.get(input.def.id);
    if (first !== undefined) {
      report(
        src,
        deref(src, item),
        f,
        `duplicate input id "${input.def.id}" (first defined on line ${first})`,
        'give each input a unique id',
      );
      return;
    }
    seen.set(input.def.id, input.where.line);
    out.push(input);
  });
  return out;
}

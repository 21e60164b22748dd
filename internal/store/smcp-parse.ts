import { isSeq } from 'yaml';
import type { SmcpComputerSettings } from '../contract/model/smcp-computer-settings.js';
import { checkKeys, mapEntries, readLocString, readString, type Entry } from './fields.js';
import { deref, describeNode, join, report, whereOf, type LocStr, type Source, type YNode } from './source.js';

export const SMCP_KEYS = ['url', 'apiKey', 'office', 'computers'] as const;
export const COMPUTER_KEYS = ['name', 'caller'] as const;

/** The `smcp:` section before `${…}` expansion of apiKey (done by the loader, like server fields). */
export interface RawSmcp {
  url: string;
  apiKey?: LocStr;
  office: string;
  computers: SmcpComputerSettings[];
}

function readUrl(src: Source, node: YNode, field: string): string | undefined {
  const v = readString(src, node, field, true);
  if (v === undefined) return undefined;
  let u: URL | undefined;
  try {
    u = new URL(v);
  } catch {
    u = undefined;
  }
  if (!u || !['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) {
    report(src, node, field, `"${v}" is not an http(s) URL`, 'write the SMCP Server base URL, e.g. http://127.0.0.1:7800');
    return undefined;
  }
  return v;
}

function parseComputer(src: Source, node: YNode, field: string): SmcpComputerSettings | undefined {
  const entries = mapEntries(src, node, field, 'a mapping {name, caller}');
  if (!entries) return undefined;
  checkKeys(src, entries, COMPUTER_KEYS, 'an SMCP computer');
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const str = (k: string): string | undefined => {
    const e = byKey.get(k);
    if (!e) {
      report(src, node, join(field, k), `computer has no ${k}`, 'write each computer as { name: NAME, caller: CALLER }');
      return undefined;
    }
    return readString(src, e.value, e.field, true);
  };
  const name = str('name');
  const caller = str('caller');
  return name !== undefined && caller !== undefined ? { name, caller } : undefined;
}

function parseComputers(src: Source, e: Entry): SmcpComputerSettings[] {
  if (!isSeq(e.value)) {
    report(
      src,
      e.value,
      e.field,
      `must be a list of computers, got ${describeNode(e.value)}`,
      'write each as "- { name: laptop, caller: vscode }"',
    );
    return [];
  }
  const out: SmcpComputerSettings[] = [];
  const seen = new Map<string, number>();
  e.value.items.forEach((item, i) => {
    const node = deref(src, item);
    const f = join(e.field, i);
    const c = parseComputer(src, node, f);
    if (!c) return;
    const first = seen.get(c.name);
    if (first !== undefined) {
      report(src, node, f, `computer "${c.name}" is listed twice (first on line ${first})`, 'a computer name is unique within its office');
      return;
    }
    seen.set(c.name, whereOf(src, node, f).line);
    out.push(c);
  });
  return out;
}

/** runtime.yaml `smcp:`; every problem is reported with its line, and undefined is returned then. */
export function parseSmcp(src: Source, node: YNode, field: string): RawSmcp | undefined {
  const entries = mapEntries(src, node, field, 'a mapping with url, apiKey, office and computers');
  if (!entries) return undefined;
  const before = src.issues.length;
  checkKeys(src, entries, SMCP_KEYS, 'the smcp section');
  const byKey = new Map(entries.map((e) => [e.key, e]));
  for (const k of ['url', 'office', 'computers'] as const) {
    if (!byKey.has(k)) report(src, node, join(field, k), `smcp has no ${k}`, `add ${k}: … (see docs/configuration.md)`);
  }
  const urlE = byKey.get('url');
  const officeE = byKey.get('office');
  const keyE = byKey.get('apiKey');
  const compE = byKey.get('computers');
  const url = urlE ? readUrl(src, urlE.value, urlE.field) : undefined;
  const office = officeE ? readString(src, officeE.value, officeE.field, true) : undefined;
  const apiKey = keyE ? readLocString(src, keyE.value, keyE.field) : undefined;
  const computers = compE ? parseComputers(src, compE) : [];
  if (src.issues.length > before || url === undefined || office === undefined) return undefined;
  return { url, office, computers, ...(apiKey ? { apiKey } : {}) };
}

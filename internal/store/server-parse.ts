import { isScalar } from 'yaml';
import { ACTIVATION_MODES, SPEC_DEFAULTS, STRATEGIES, TRANSPORTS, type Transport } from '../contract/model/spec.js';
import {
  checkKeys,
  durationRule,
  mapEntries,
  readBool,
  readEnum,
  readLocString,
  readNumber,
  readString,
  readStringList,
  readStringMap,
  type Entry,
  type NumberRule,
} from './fields.js';
import { NAME_HINT, isValidName } from './names.js';
import { shellWords } from './shell-words.js';
import { report, warn, whereOf, type LocStr, type Source, type YNode } from './source.js';
import { parseOAuth } from './oauth-parse.js';
import { parseSandbox, reportRemoteSandbox } from './sandbox-parse.js';
import { parseToolMeta, parseToolMetaMap } from './tool-meta-parse.js';
import type { FixedFields, RawServer } from './types.js';

export const SERVER_KEYS = [
  'name',
  'transport',
  'cmd',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'oauth',
  'sandbox',
  'disabled',
  'exposeTools',
  'forbiddenTools',
  'taskTools',
  'toolMeta',
  'defaultToolMeta',
  'strategy',
  'maxConcurrent',
  'maxInstances',
  'minReady',
  'idleSeconds',
  'activationMode',
  'sessionTTLSeconds',
  'drainTimeoutSeconds',
  'callTimeoutSeconds',
] as const;

type NumericKey =
  'maxConcurrent' | 'maxInstances' | 'minReady' | 'idleSeconds' | 'sessionTTLSeconds' | 'drainTimeoutSeconds' | 'callTimeoutSeconds';

export const NUMBER_RULES: Record<NumericKey, NumberRule> = {
  maxConcurrent: { integer: true, min: 1 },
  maxInstances: { integer: true, min: 1 },
  minReady: { integer: true, min: 0 },
  idleSeconds: durationRule(0),
  sessionTTLSeconds: durationRule(0, true),
  drainTimeoutSeconds: durationRule(0),
  callTimeoutSeconds: durationRule(0, true),
};

interface Acc {
  src: Source;
  byKey: Map<string, Entry>;
  raw: RawServer;
  /** The command was written but could not be read; already reported. */
  cmdBroken: boolean;
}

function parseCmd(src: Source, e: Entry): LocStr[] | undefined {
  if (isScalar(e.value) && typeof e.value.value === 'string') {
    const split = shellWords(e.value.value);
    if ('error' in split) {
      report(src, e.value, e.field, `cannot split the command line: ${split.error}`, 'close the quote or write cmd as a list');
      return undefined;
    }
    const where = whereOf(src, e.value, e.field);
    return split.words.map((text) => ({ text, where }));
  }
  return readStringList(src, e.value, e.field);
}

/** `cmd` (string or list) or the A2C-SMCP spelling `command` + `args`, never both. */
function resolveCmd(a: Acc): void {
  const cmd = a.byKey.get('cmd');
  const command = a.byKey.get('command');
  const args = a.byKey.get('args');
  if (cmd && (command || args)) {
    const extra = (command ?? args) as Entry;
    report(
      a.src,
      extra.keyNode,
      extra.field,
      'use either "cmd" or "command" + "args", not both',
      'merge the program and its arguments into cmd: [program, arg, …]',
    );
  }
  if (cmd) {
    const words = parseCmd(a.src, cmd);
    a.cmdBroken = words === undefined;
    a.raw.cmd = words ?? [];
    return;
  }
  if (args && !command) {
    report(a.src, args.keyNode, args.field, '"args" needs "command"', 'add command: <program>, or use cmd: [program, …]');
    a.cmdBroken = true;
    return;
  }
  if (command) {
    const program = readLocString(a.src, command.value, command.field, true);
    const rest = args ? readStringList(a.src, args.value, args.field) : [];
    a.cmdBroken = !program || !rest;
    a.raw.cmd = program && rest ? [program, ...rest] : [];
  }
}

function applyFixed(a: Acc, e: Entry): void {
  const { src } = a;
  const f = a.raw.fixed as unknown as Record<string, unknown>;
  if (e.key in NUMBER_RULES) {
    const v = readNumber(src, e.value, e.field, NUMBER_RULES[e.key as NumericKey]);
    if (v !== undefined) f[e.key] = v;
  } else if (e.key === 'disabled') {
    const v = readBool(src, e.value, e.field);
    if (v !== undefined) f.disabled = v;
  } else if (e.key === 'strategy') {
    f.strategy = readEnum(src, e.value, e.field, STRATEGIES) ?? f.strategy;
  } else if (e.key === 'activationMode') {
    f.activationMode = readEnum(src, e.value, e.field, ACTIVATION_MODES) ?? f.activationMode;
  } else if (e.key === 'exposeTools' || e.key === 'forbiddenTools' || e.key === 'taskTools') {
    const v = readStringList(src, e.value, e.field);
    if (v) f[e.key] = v.map((s) => s.text);
  } else if (e.key === 'toolMeta') {
    f.toolMeta = parseToolMetaMap(src, e.value, e.field);
  } else if (e.key === 'defaultToolMeta') {
    const v = parseToolMeta(src, e.value, e.field);
    if (v) f.defaultToolMeta = v;
  }
}

function applyTransportFields(a: Acc, e: Entry): void {
  const { src, raw } = a;
  if (e.key === 'env') raw.env = readStringMap(src, e.value, e.field) ?? [];
  else if (e.key === 'headers') raw.headers = readStringMap(src, e.value, e.field) ?? [];
  else if (e.key === 'cwd') raw.cwd = readLocString(src, e.value, e.field, true);
  else if (e.key === 'url') raw.url = readLocString(src, e.value, e.field, true);
  else if (e.key === 'oauth') raw.oauth = parseOAuth(src, e.value, e.field);
  else if (e.key === 'sandbox') raw.sandbox = parseSandbox(src, e.value, e.field);
}

/** singleton ⇒ one instance; minReady cannot exceed the cap. */
function checkScheduling(a: Acc): void {
  const f = a.raw.fixed;
  const maxEntry = a.byKey.get('maxInstances');
  if (f.strategy === 'singleton' && f.maxInstances !== 1) {
    if (maxEntry) {
      warn(
        a.src,
        maxEntry.value,
        maxEntry.field,
        `strategy singleton runs exactly one instance; maxInstances ${f.maxInstances} is ignored`,
        'remove maxInstances or set it to 1',
      );
    }
    f.maxInstances = 1;
  }
  const minEntry = a.byKey.get('minReady');
  if (minEntry && f.minReady > f.maxInstances) {
    report(
      a.src,
      minEntry.value,
      minEntry.field,
      `minReady ${f.minReady} is greater than maxInstances ${f.maxInstances}`,
      `lower minReady to at most ${f.maxInstances} or raise maxInstances`,
    );
  }
}

function checkTransport(a: Acc, node: YNode): void {
  const { raw, src } = a;
  const field = raw.where.field;
  const ignored = (keys: string[], why: string): void => {
    for (const k of keys) {
      const e = a.byKey.get(k);
      if (e) warn(src, e.keyNode, e.field, `"${k}" is ignored: ${why}`, `remove "${k}" or change transport`);
    }
  };
  if (raw.transport === 'stdio') {
    if (a.cmdBroken) {
      // already reported where it was written
    } else if (raw.cmd.length === 0 && !a.byKey.has('cmd') && !a.byKey.has('command')) {
      report(
        src,
        node,
        field,
        `server "${raw.name}" uses transport stdio but has no cmd`,
        'add cmd: [program, arg, …] (or url: … for an HTTP server)',
      );
    } else if (raw.cmd.length === 0 && a.byKey.has('cmd')) {
      const e = a.byKey.get('cmd') as Entry;
      report(src, e.value, e.field, 'cmd must not be empty for transport stdio', 'put the program and its arguments in cmd');
    }
    ignored(['url', 'headers', 'oauth'], 'transport stdio does not use it');
    raw.url = undefined;
    raw.headers = [];
    raw.oauth = undefined;
  } else {
    if (!raw.url && !a.byKey.has('url')) {
      report(src, node, field, `server "${raw.name}" uses transport ${raw.transport} but has no url`, 'add url: http://host:port/path');
    }
    ignored(['cmd', 'command', 'args', 'env', 'cwd'], `transport ${raw.transport} connects to a running server`);
    const sandbox = a.byKey.get('sandbox');
    if (sandbox && raw.sandbox) reportRemoteSandbox(src, sandbox.keyNode, sandbox.field, raw.transport);
    raw.sandbox = undefined;
    raw.cmd = [];
    raw.env = [];
    raw.cwd = undefined;
  }
}

function emptyRaw(src: Source, node: YNode, field: string): RawServer {
  const fixed: FixedFields = { ...SPEC_DEFAULTS, disabled: false, forbiddenTools: [], toolMeta: {} };
  const where = whereOf(src, node, field);
  return { where, nameWhere: where, name: '', transport: 'stdio', cmd: [], env: [], headers: [], fixed };
}

/** One `servers[i]` entry; undefined when it has no usable name. */
export function parseServer(src: Source, node: YNode, field: string): RawServer | undefined {
  const entries = mapEntries(src, node, field, 'a mapping (one server)');
  if (!entries) return undefined;
  checkKeys(src, entries, SERVER_KEYS, 'a server');
  const a: Acc = { src, byKey: new Map(entries.map((e) => [e.key, e])), raw: emptyRaw(src, node, field), cmdBroken: false };
  const nameEntry = a.byKey.get('name');
  if (!nameEntry) {
    report(src, node, field, 'server has no name', "add name: <unique name>; it prefixes the server's tools");
    return undefined;
  }
  const name = readString(src, nameEntry.value, nameEntry.field, true);
  if (name === undefined) return undefined;
  if (!isValidName(name)) report(src, nameEntry.value, nameEntry.field, `invalid server name "${name}"`, NAME_HINT);
  a.raw.name = name;
  a.raw.nameWhere = whereOf(src, nameEntry.value, nameEntry.field);
  const transportEntry = a.byKey.get('transport');
  const hasCmd = a.byKey.has('cmd') || a.byKey.has('command');
  let transport: Transport | undefined = a.byKey.has('url') && !hasCmd ? 'streamable_http' : 'stdio';
  if (!transportEntry && hasCmd && a.byKey.has('url')) {
    report(
      src,
      node,
      field,
      `server "${name}" has both a command and a url`,
      'add transport: stdio | streamable_http | sse to say which one to use',
    );
  }
  if (transportEntry) transport = readEnum(src, transportEntry.value, transportEntry.field, TRANSPORTS);
  a.raw.transport = transport ?? 'stdio';
  resolveCmd(a);
  for (const e of entries) {
    applyTransportFields(a, e);
    applyFixed(a, e);
  }
  checkScheduling(a);
  if (transport) checkTransport(a, node);
  return a.raw;
}

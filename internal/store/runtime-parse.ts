import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_RUNTIME, LOG_LEVELS, type RuntimeSettings } from '../contract/model/profile.js';
import { checkKeys, durationRule, mapEntries, readEnum, readNumber, readString, readStringMap, type NumberRule } from './fields.js';
import { report, whereOf, type LocStr, type Source, type YNode } from './source.js';
import { parseSmcp, type RawSmcp } from './smcp-parse.js';
import { parseAudit } from './audit-parse.js';

type NumericKey =
  | 'poolWaitSeconds'
  | 'snapshotRetentionSeconds'
  | 'pageSize'
  | 'listingBudgetSeconds'
  | 'restartBackoffMaxSeconds'
  | 'crashLoopThreshold'
  | 'crashLoopWindowSeconds'
  | 'shutdownGraceSeconds'
  | 'sessionOutboundBytes'
  | 'sessionHelloTimeoutSeconds'
  | 'sessionFrameStallSeconds'
  | 'sessionChannelsPerConnection'
  | 'pingIntervalSeconds';

const SHUTDOWN_GRACE_MAX_SECONDS = 3600;

export const NUMBER_RULES: Record<NumericKey, NumberRule> = {
  poolWaitSeconds: durationRule(0),
  snapshotRetentionSeconds: durationRule(0, true),
  pageSize: { integer: true, min: 1 },
  listingBudgetSeconds: durationRule(0, true),
  restartBackoffMaxSeconds: durationRule(0, true),
  crashLoopThreshold: { integer: true, min: 1 },
  crashLoopWindowSeconds: durationRule(0, true),
  // 0 = cancel calls in flight at once; the cap keeps a stop finite (and within Node's timer range).
  shutdownGraceSeconds: { integer: false, min: 0, max: SHUTDOWN_GRACE_MAX_SECONDS },
  sessionOutboundBytes: { integer: true, min: 65536 },
  sessionHelloTimeoutSeconds: durationRule(0, true),
  sessionFrameStallSeconds: durationRule(0, true),
  sessionChannelsPerConnection: { integer: true, min: 1, max: 65536 },
  pingIntervalSeconds: durationRule(0),
};

export const RUNTIME_KEYS = [...Object.keys(DEFAULT_RUNTIME), 'inputValues', 'env', 'envFile', 'smcp', 'registry'];

export interface ParsedRuntime {
  runtime: RuntimeSettings;
  inputValues: Map<string, string>;
  /** The store's own variables for `${VAR}` (`env:`), before every other source. */
  env: Map<string, string>;
  /** `envFile:`, a dotenv file of variables (absolute; relative ones are taken from the store's folder). */
  envFile?: LocStr;
  /** The `smcp:` section, when present and valid. */
  smcp?: RawSmcp;
}

const ADDRESS_RE = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function readAddress(src: Source, node: YNode, field: string): string | undefined {
  const v = readString(src, node, field);
  if (v === undefined || v === '') return v;
  const m = ADDRESS_RE.exec(v);
  if (!m || Number(m[2]) > 65535) {
    report(src, node, field, `"${v}" is not a host:port address`, 'write e.g. 127.0.0.1:9464, or "" to disable');
    return undefined;
  }
  return v;
}

/** `registry: { url }`: the MCP Registry `mcpdctl search` and `add` ask (read by mcpdctl; checked here). */
function checkRegistry(src: Source, node: YNode, field: string): void {
  const entries = mapEntries(src, node, field, 'a mapping (url)');
  if (!entries) return;
  checkKeys(src, entries, ['url'], 'registry');
  for (const e of entries) {
    const v = readString(src, e.value, e.field, true);
    if (v !== undefined && !/^https?:\/\/[^/]+/.test(v)) {
      report(
        src,
        e.value,
        e.field,
        `"${v}" is not an http(s) URL`,
        'write the registry base URL, e.g. https://registry.modelcontextprotocol.io',
      );
    }
  }
}

/** runtime.yaml; a relative socket path is taken relative to the store directory. */
export function parseRuntime(src: Source, storeDir: string): ParsedRuntime {
  const runtime: RuntimeSettings = { ...DEFAULT_RUNTIME };
  const inputValues = new Map<string, string>();
  const env = new Map<string, string>();
  let envFile: LocStr | undefined;
  let smcp: RawSmcp | undefined;
  const entries = mapEntries(src, src.doc.contents as YNode, '', 'a mapping of settings');
  if (!entries) return { runtime, inputValues, env };
  checkKeys(src, entries, RUNTIME_KEYS, 'runtime.yaml');
  for (const e of entries) {
    if (e.key in NUMBER_RULES) {
      const v = readNumber(src, e.value, e.field, NUMBER_RULES[e.key as NumericKey]);
      if (v !== undefined) runtime[e.key as NumericKey] = v;
    } else if (e.key === 'logLevel') {
      runtime.logLevel = readEnum(src, e.value, e.field, LOG_LEVELS) ?? runtime.logLevel;
    } else if (e.key === 'metricsAddress') {
      runtime.metricsAddress = readAddress(src, e.value, e.field) ?? runtime.metricsAddress;
    } else if (e.key === 'socket') {
      const v = readString(src, e.value, e.field);
      if (v !== undefined) runtime.socket = v === '' || isAbsolute(v) ? v : resolve(storeDir, v);
    } else if (e.key === 'inputValues') {
      for (const [k, v] of readStringMap(src, e.value, e.field) ?? []) inputValues.set(k, v.text);
    } else if (e.key === 'env') {
      for (const [k, v] of readStringMap(src, e.value, e.field) ?? []) env.set(k, v.text);
    } else if (e.key === 'envFile') {
      const v = readString(src, e.value, e.field);
      if (v) envFile = { text: isAbsolute(v) ? v : resolve(storeDir, v), where: whereOf(src, e.value, e.field) };
    } else if (e.key === 'audit') {
      runtime.audit = parseAudit(src, e.value, e.field, storeDir);
    } else if (e.key === 'smcp') {
      smcp = parseSmcp(src, e.value, e.field);
    } else if (e.key === 'registry') {
      checkRegistry(src, e.value, e.field);
    }
  }
  return { runtime, inputValues, env, ...(envFile ? { envFile } : {}), ...(smcp ? { smcp } : {}) };
}

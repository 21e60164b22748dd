import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOG_LEVELS } from '../contract/model/profile.js';
import { ACTIVATION_MODES, STRATEGIES, TRANSPORTS } from '../contract/model/spec.js';
import type { NumberRule } from './fields.js';
import { OAUTH_KEYS } from './oauth-parse.js';
import { SANDBOX_FS_KEYS, SANDBOX_KEYS, SANDBOX_NET_KEYS } from './sandbox-parse.js';
import { INPUT_TYPES, KEYS_BY_TYPE } from './inputs-parse.js';
import { NAME_RE } from './names.js';
import { NAMESPACE_KEYS, PROFILE_KEYS } from './profile-parse.js';
import { POLICY_KEYS } from './policy-parse.js';
import { NUMBER_RULES as RUNTIME_NUMBERS, RUNTIME_KEYS } from './runtime-parse.js';
import { NUMBER_RULES as SERVER_NUMBERS, SERVER_KEYS } from './server-parse.js';
import { TOOL_META_KEYS } from './tool-meta-parse.js';
import { COMPUTER_KEYS, SMCP_KEYS } from './smcp-parse.js';
import { AUDIT_KEYS, AUDIT_NUMBERS } from './audit-parse.js';
import { TOOL_SEARCH_KEYS } from './tool-search-parse.js';

/**
 * JSON Schemas of the store's files, built from the key lists, enums and number rules the parsers
 * validate with, so an editor checks and completes what mcpd accepts. Every key a parser knows must
 * get a schema here: an unmapped key is still allowed (as "anything", so a new key never breaks a
 * scaffold) and listed by `schemaGaps()`, which the schema test requires to be empty.
 */
type Schema = Record<string, unknown>;

const SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const str: Schema = { type: 'string' };
const strList: Schema = { type: 'array', items: str };
const scalarMap: Schema = { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } };

function numberSchema(rule: NumberRule): Schema {
  return {
    type: rule.integer ? 'integer' : 'number',
    ...(rule.exclusive ? { exclusiveMinimum: rule.min } : { minimum: rule.min }),
    ...(rule.max !== undefined ? { maximum: rule.max } : {}),
  };
}

let gaps: string[] = [];

function object(keys: readonly string[], typeOf: (key: string) => Schema | undefined, what: string, required: string[] = []): Schema {
  const properties: Record<string, Schema> = {};
  for (const k of keys) {
    const s = typeOf(k);
    if (!s) gaps.push(`${what} key "${k}"`);
    properties[k] = s ?? {};
  }
  return { type: 'object', properties, additionalProperties: false, ...(required.length ? { required } : {}) };
}

function toolMetaSchema(): Schema {
  const types: Record<string, Schema> = { alias: str, tags: strList, autoApply: { type: 'boolean' } };
  return object(TOOL_META_KEYS, (k) => types[k], 'toolMeta');
}

function oauthSchema(): Schema {
  const types: Record<string, Schema> = {
    clientId: { ...str, description: 'a pre-registered OAuth client id' },
    clientSecret: { ...str, description: 'its secret (use ${VAR} or an input)' },
    scopes: { ...strList, description: 'scopes to ask for when the server names none' },
    clientMetadataUrl: { type: 'string', pattern: '^https://', description: 'https URL of a client ID metadata document' },
  };
  const o = object(OAUTH_KEYS, (k) => types[k], 'oauth');
  return { ...o, description: 'OAuth client settings of a streamable_http / sse server (docs/auth.md)' };
}

function sandboxSchema(): Schema {
  const fs = object(
    SANDBOX_FS_KEYS,
    (k) => ({ ...strList, description: k === 'read' ? 'read-only path grants' : 'read-write path grants' }),
    'sandbox.filesystem',
  );
  const net = object(
    SANDBOX_NET_KEYS,
    () => ({ ...strList, description: 'host, host:port, *.domain or *; [] = no network' }),
    'sandbox.network',
  );
  const types: Record<string, Schema> = { filesystem: fs, network: net };
  const o = object(SANDBOX_KEYS, (k) => types[k], 'sandbox');
  return {
    oneOf: [{ type: 'boolean' }, o],
    description: 'run this stdio server in a bubblewrap sandbox (docs/sandbox.md); false = unsandboxed',
  };
}

function serverSchema(): Schema {
  const numbers = SERVER_NUMBERS as Record<string, NumberRule>;
  const types: Record<string, Schema> = {
    name: { type: 'string', pattern: NAME_RE.source, description: "unique in the profile; prefixes the server's tools" },
    transport: { enum: [...TRANSPORTS] },
    cmd: { oneOf: [str, strList], description: 'program and arguments (a list, or one shell-like string)' },
    command: str,
    args: strList,
    env: scalarMap,
    cwd: str,
    url: str,
    headers: scalarMap,
    oauth: oauthSchema(),
    sandbox: sandboxSchema(),
    disabled: { type: 'boolean' },
    exposeTools: { ...strList, description: 'tool names or * / ? globs to expose (default: all)' },
    forbiddenTools: { ...strList, description: 'tool names or * / ? globs never exposed' },
    taskTools: { ...strList, description: 'tool names or * / ? globs the core runs as tasks (SEP-2663) for clients that negotiated them' },
    toolMeta: { type: 'object', additionalProperties: toolMetaSchema() },
    defaultToolMeta: toolMetaSchema(),
    strategy: { enum: [...STRATEGIES] },
    activationMode: { enum: [...ACTIVATION_MODES] },
  };
  return object(SERVER_KEYS, (k) => types[k] ?? (numbers[k] ? numberSchema(numbers[k]) : undefined), 'server', ['name']);
}

function inputSchema(): Schema {
  const types: Record<string, Schema> = {
    id: str,
    description: str,
    default: str,
    password: { type: 'boolean' },
    options: strList,
    command: str,
    args: { type: 'object', additionalProperties: str },
  };
  return {
    oneOf: INPUT_TYPES.map((t) => {
      const s = object(KEYS_BY_TYPE[t], (k) => (k === 'type' ? { const: t } : types[k]), `input (${t})`, ['id', 'type']);
      return s;
    }),
  };
}

export function profileSchema(): Schema {
  const namespace = object(
    NAMESPACE_KEYS,
    (k) =>
      ({
        mode: { enum: ['prefix', 'never'] },
        separator: str,
        maxLength: { type: 'integer', minimum: 16 },
        reserve: { type: 'integer', minimum: 0, description: "characters kept free for the client's own prefix" },
      })[k],
    'namespace',
  );
  const toolSearch = {
    oneOf: [
      { type: 'boolean' },
      object(
        TOOL_SEARCH_KEYS,
        (k) => ({ enabled: { type: 'boolean' }, pinned: strList, maxResults: { type: 'integer', minimum: 1 } })[k],
        'toolSearch',
      ),
    ],
  };
  const types: Record<string, Schema> = {
    servers: { type: 'array', items: serverSchema() },
    inputs: { type: 'array', items: inputSchema() },
    namespace,
    toolSearch,
    sandbox: {
      type: 'boolean',
      description: 'true: every stdio server without its own "sandbox" runs sandboxed with no grants (docs/sandbox.md)',
    },
  };
  return { $schema: SCHEMA_DRAFT, title: 'mcpd profile (profiles/<name>.yaml)', ...object(PROFILE_KEYS, (k) => types[k], 'profile') };
}

function smcpSchema(): Schema {
  const computer = object(COMPUTER_KEYS, () => ({ type: 'string', minLength: 1 }), 'smcp computer', [...COMPUTER_KEYS]);
  const types: Record<string, Schema> = {
    url: { type: 'string', description: 'the SMCP server (Socket.IO) URL' },
    apiKey: str,
    office: { type: 'string', minLength: 1 },
    computers: { type: 'array', items: computer },
  };
  return object(SMCP_KEYS, (k) => types[k], 'smcp', ['url', 'office', 'computers']);
}

function auditSchema(): Schema {
  const types: Record<string, Schema> = {
    enabled: { type: 'boolean', description: 'false turns the audit log off (default true)' },
    file: { type: 'string', description: 'the audit log; relative to the store; "" = audit.jsonl in the state directory' },
    arguments: { type: 'boolean', description: "write each call's arguments in clear (default: only their sha256)" },
    maxBytes: { ...numberSchema(AUDIT_NUMBERS.maxBytes), description: 'rotate the file before it grows past this' },
    keep: { ...numberSchema(AUDIT_NUMBERS.keep), description: 'rotated files kept' },
  };
  return object(AUDIT_KEYS, (k) => types[k], 'audit');
}

export function runtimeSchema(): Schema {
  const numbers = RUNTIME_NUMBERS as Record<string, NumberRule>;
  const types: Record<string, Schema> = {
    socket: str,
    metricsAddress: { type: 'string', description: 'host:port for /metrics and /healthz; "" disables' },
    logLevel: { enum: [...LOG_LEVELS] },
    inputValues: { type: 'object', additionalProperties: str },
    env: { type: 'object', additionalProperties: str, description: 'variables for ${VAR}, before every other source' },
    envFile: { type: 'string', description: 'a dotenv file (NAME=value lines) of variables for ${VAR}; relative to the store' },
    smcp: smcpSchema(),
    audit: auditSchema(),
    registry: {
      type: 'object',
      properties: { url: { type: 'string', pattern: '^https?://', description: 'MCP Registry base URL (mcpdctl search / add)' } },
      additionalProperties: false,
    },
  };
  return {
    $schema: SCHEMA_DRAFT,
    title: 'mcpd runtime settings (runtime.yaml)',
    ...object(RUNTIME_KEYS, (k) => types[k] ?? (numbers[k] ? numberSchema(numbers[k]) : undefined), 'runtime.yaml'),
  };
}

export function callersSchema(): Schema {
  return {
    $schema: SCHEMA_DRAFT,
    title: 'mcpd callers (callers.yaml)',
    type: 'object',
    properties: {
      callers: {
        type: 'object',
        additionalProperties: {
          oneOf: [
            { type: 'string', pattern: NAME_RE.source, description: 'the profile this caller gets' },
            {
              type: 'object',
              required: ['profile'],
              properties: {
                profile: { type: 'string', pattern: NAME_RE.source, description: 'the profile this caller gets' },
                reserve: {
                  type: 'integer',
                  minimum: 0,
                  description:
                    "characters this caller's client keeps for its own tool-name prefix; replaces the profile's namespace.reserve for this caller",
                },
              },
              additionalProperties: false,
            },
          ],
        },
      },
      policies: { type: 'array', items: policySchema(), description: 'per-caller rules and quotas, first match decides (docs/policy.md)' },
    },
    additionalProperties: false,
  };
}

function policySchema(): Schema {
  const types: Record<string, Schema> = {
    name: { type: 'string', minLength: 1, description: "the rule's name: refusals, metrics and the audit log name it" },
    callers: { ...strList, description: 'caller globs; omitted = every caller' },
    effect: { enum: ['deny', 'allow'] },
    tools: { ...strList, description: 'globs over the tool names the caller sees' },
    resources: { ...strList, description: 'URI globs over resources and resource templates' },
    prompts: { ...strList, description: 'globs over the prompt names the caller sees' },
    when: { type: 'string', description: 'CEL over caller, face, method, client, tool, uri, args: the rule applies only when true' },
    rate: {
      type: 'string',
      pattern: '^\\s*\\d+\\s*/\\s*(second|minute|hour)s?\\s*$',
      description: 'a quota per caller and target, e.g. "10/minute" (allow rules)',
    },
  };
  return object(POLICY_KEYS, (k) => types[k], 'a policy rule', ['name', 'effect']);
}

/** Keys the parsers accept that the schemas do not describe yet (must be empty; see the test). */
export function schemaGaps(): string[] {
  gaps = [];
  profileSchema();
  runtimeSchema();
  callersSchema();
  return gaps;
}

/** Where scaffolded files point their `$schema` (relative to the store). */
export const SCHEMA_DIR = '.schema';
export const SCHEMA_FILES = {
  profile: 'profile.schema.json',
  callers: 'callers.schema.json',
  runtime: 'runtime.schema.json',
} as const;

/** Writes the three schemas into `<store>/.schema/` (replacing older ones: they follow this version). */
export async function writeStoreSchemas(storeDir: string): Promise<string[]> {
  const dir = join(storeDir, SCHEMA_DIR);
  await mkdir(dir, { recursive: true });
  const out: string[] = [];
  for (const [file, schema] of [
    [SCHEMA_FILES.profile, profileSchema()],
    [SCHEMA_FILES.callers, callersSchema()],
    [SCHEMA_FILES.runtime, runtimeSchema()],
  ] as const) {
    const p = join(dir, file);
    await writeFile(p, `${JSON.stringify(schema, null, 2)}\n`);
    out.push(p);
  }
  return out;
}

import { parseArgs } from 'node:util';
import { parseListenAddress, type ListenAddress } from '../../internal/shared/http-address.js';

export interface SmcpArgs {
  listen: ListenAddress;
  apiKeyEnv: string;
  /** The key itself, read from the environment variable named by --api-key-env (never logged). */
  apiKey?: string;
  redis?: string;
  /** --node-secret-env: the variable holding the secret that seals the nodes' Redis messages. */
  nodeSecretEnv: string;
  /** The node secret itself (never logged). */
  nodeSecret?: string;
  maxPayloadBytes?: number;
  /** --max-in-flight: routed requests one agent connection may have waiting for answers. */
  maxInFlightPerAgent?: number;
  /** --max-in-flight-computer: routed requests that may wait on one computer. */
  maxInFlightPerComputer?: number;
}

export const USAGE = `usage: mcpd-smcp [--listen HOST:PORT] [--api-key-env NAME] [--redis redis://HOST:PORT] [--max-payload BYTES]

  --listen HOST:PORT     where to serve Socket.IO namespace /smcp (default 127.0.0.1:7800; port 0 = any free port).
                         A non-loopback address needs an API key.
  --api-key-env NAME     environment variable holding the API key clients must send as the "x-api-key"
                         header (default SMCP_API_KEY; unset or empty = no key, loopback only)
  --redis URL            share offices, names and routed calls with other mcpd-smcp nodes through this Redis
  --node-secret-env NAME environment variable holding the secret (32+ characters, the same on every node, never
                         the API key) that encrypts and authenticates what nodes exchange on Redis
                         (default SMCP_NODE_SECRET; required with --redis)
  --max-payload BYTES    largest accepted event payload (default 1048576)
  --max-in-flight N      requests one agent may have waiting for answers (default 256; also 64 MiB of payload)
  --max-in-flight-computer N
                         requests that may wait on one computer (default 512)`;

/** Parses argv (without node and script) and the environment; throws an Error saying what to fix. */
export function parseSmcpArgs(argv: readonly string[], env: NodeJS.ProcessEnv): SmcpArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        listen: { type: 'string', default: '127.0.0.1:7800' },
        'api-key-env': { type: 'string', default: 'SMCP_API_KEY' },
        redis: { type: 'string' },
        'node-secret-env': { type: 'string', default: 'SMCP_NODE_SECRET' },
        'max-payload': { type: 'string' },
        'max-in-flight': { type: 'string' },
        'max-in-flight-computer': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new Error(USAGE);
  let listen: ListenAddress;
  try {
    listen = parseListenAddress(values.listen);
  } catch (e) {
    throw new Error((e as Error).message.replace('--http', '--listen'));
  }
  const apiKeyEnv = values['api-key-env'];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))
    throw new Error(`--api-key-env needs an environment variable name such as SMCP_API_KEY, got ${JSON.stringify(apiKeyEnv)}`);
  const redis = values.redis;
  if (redis !== undefined && !/^rediss?:\/\/[^/\s]+/.test(redis))
    throw new Error(`--redis needs a URL such as redis://127.0.0.1:6379, got ${JSON.stringify(redis)}`);
  const nodeSecretEnv = values['node-secret-env'];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(nodeSecretEnv))
    throw new Error(`--node-secret-env needs an environment variable name such as SMCP_NODE_SECRET, got ${JSON.stringify(nodeSecretEnv)}`);
  let maxPayloadBytes: number | undefined;
  if (values['max-payload'] !== undefined) {
    maxPayloadBytes = Number(values['max-payload']);
    if (!Number.isInteger(maxPayloadBytes) || maxPayloadBytes < 1024)
      throw new Error(`--max-payload needs a whole number of bytes, at least 1024, got ${JSON.stringify(values['max-payload'])}`);
  }
  const key = env[apiKeyEnv];
  const maxInFlightPerAgent = positiveCount('--max-in-flight', values['max-in-flight']);
  const maxInFlightPerComputer = positiveCount('--max-in-flight-computer', values['max-in-flight-computer']);
  const nodeSecret = env[nodeSecretEnv] || undefined;
  return {
    listen,
    apiKeyEnv,
    apiKey: key ? key : undefined,
    redis,
    nodeSecretEnv,
    nodeSecret,
    maxPayloadBytes,
    maxInFlightPerAgent,
    maxInFlightPerComputer,
  };
}

function positiveCount(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a whole number, at least 1, got ${JSON.stringify(raw)}`);
  return n;
}

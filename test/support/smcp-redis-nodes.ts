import { startRedis, type RedisProc } from './redis-proc.js';
import { startSmcpProc, type SmcpProc } from './smcp-server-proc.js';

/** A real Redis and mcpd-smcp nodes scaled out on it (`--redis`). */
export interface SmcpNodes {
  redis: RedisProc;
  nodes: SmcpProc[];
  /** Stops every node (SIGTERM; their exit results, in order), then Redis. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }[]>;
}

/** `count` mcpd-smcp nodes sharing one fresh Redis; `env` goes to the nodes (e.g. a world's, with its tag). */
export async function startSmcpNodes(count: number, env: NodeJS.ProcessEnv = {}): Promise<SmcpNodes> {
  const redis = await startRedis();
  const nodes: SmcpProc[] = [];
  try {
    for (let i = 0; i < count; i++) nodes.push(await startSmcpProc(['--redis', redis.url], env));
  } catch (e) {
    for (const n of nodes) await n.stop();
    await redis.stop();
    throw e;
  }
  return {
    redis,
    nodes,
    stop: async () => {
      const results = [];
      for (const n of nodes) results.push(await n.stop());
      await redis.stop();
      return results;
    },
  };
}

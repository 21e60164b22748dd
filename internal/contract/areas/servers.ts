import type { RestartedInstance, RestartedPool, RestartRequest } from '../control/control-areas.js';
import { McpdError } from '../../shared/errors.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { absent, method, type Area } from './area.js';

/** Who an operator action is recorded as (the audit log's caller) when the request names no one. */
export const OPERATOR = 'operator';

/**
 * Operator actions on the servers' pools: `RestartServer` (`mcpdctl restart`). gRPC only: an MCP client
 * has no say over the servers' processes. Declared `core`, like a call that does work on a server: the
 * door's audit log records it, and a graceful stop refuses it (and waits for one under way).
 */
export const serversArea: Area = {
  name: 'servers',
  methods: [
    method<RestartRequest, RestartedPool[]>({
      name: 'mcpd/servers/restart',
      admission: 'core',
      routed: false,
      invoke: (api, req, ctx) => api.servers.restart(ctx.caller, req),
      session: absent('an operator action: mcpdctl restart and the dashboard reach it, an MCP client does not'),
      grpc: {
        rpc: 'restartServer',
        fromPb: (r: pb.RestartServerRequest) => {
          if (!r.server)
            throw new McpdError('INVALID_ARGUMENT', 'RestartServer needs "server": a server name, profile/server, or a fingerprint');
          return { caller: r.caller || OPERATOR, req: { server: r.server, instance: r.instance || undefined } };
        },
        toPb: (pools): pb.RestartServerResponse => ({ pools: pools.map(poolToPb) }),
      },
      gateway: absent('an operator action, not part of MCP'),
    }),
  ],
};

function poolToPb(p: RestartedPool): pb.RestartedPool {
  return {
    fingerprint: p.fingerprint,
    references: p.references,
    stopped: p.stopped.map(instanceToPb),
    started: p.started.map(instanceToPb),
    error: p.error ?? '',
  };
}

function instanceToPb(i: RestartedInstance): pb.RestartedInstance {
  return { id: i.id, pid: i.pid ?? 0, state: i.state };
}

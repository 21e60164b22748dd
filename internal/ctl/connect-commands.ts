/*
 * The declarations of `mcpdctl connect` and `mcpdctl disconnect` (their flags and how they call
 * connect-command.ts, which loads only when one of them runs).
 */
import type { CtlCommand } from './ctl-command.js';
import { str } from './ctl-command.js';
import { configFrom } from '../launch/common-flags.js';
import { CLIENTS, placeFromProcess } from './client-configs.js';
import { fileURLToPath } from 'node:url';
import { must } from '../shared/must.js';

/** dist/cmd/mcpdmcp/main.js of this installation: what a connected client is made to spawn. */
const GATEWAY_SCRIPT = fileURLToPath(new URL('../../cmd/mcpdmcp/main.js', import.meta.url));

function connecting(name: 'connect' | 'disconnect', summary: string): CtlCommand {
  return {
    name,
    args: '<client>',
    summary,
    details: `clients: ${CLIENTS.join(', ')} (docs/clients.md says which file each one keeps)`,
    offline: true,
    flags: {
      ...(name === 'connect'
        ? {
            caller: { type: 'string', value: 'NAME', help: 'the caller name the client uses (default: the client’s name)' } as const,
            move: {
              type: 'boolean',
              help: 'remove the client’s entries that mcpd now runs (imported into the caller’s profile), so they do not run twice',
            } as const,
            http: {
              type: 'boolean',
              help: 'write a streamable HTTP entry for `mcpdmcp <caller> --http` (which you run) instead of a stdio one',
            } as const,
            url: { type: 'string', value: 'URL', help: 'with --http: the gateway’s URL (default http://127.0.0.1:8931/mcp)' } as const,
            'token-env': {
              type: 'string',
              value: 'NAME',
              help: 'with --http: the variable holding the gateway’s token, referenced by the entry (default MCPD_HTTP_TOKEN)',
            } as const,
          }
        : {}),
      'dry-run': { type: 'boolean', help: 'show the diff, change nothing' },
    },
    run: async ({ args: a, flags, out }) => {
      const { connectCommand, gatewaySocket } = await import('./connect-command.js');
      return connectCommand(
        must(a[0], '<client>'),
        name === 'connect',
        {
          configDir: configFrom(str(flags.config)),
          dryRun: flags['dry-run'] === true,
          place: placeFromProcess(),
          caller: str(flags.caller),
          move: flags.move === true,
          http: flags.http === true,
          url: str(flags.url),
          tokenEnv: str(flags['token-env']),
          socket: gatewaySocket(str(flags.socket), process.env),
          gatewayScript: GATEWAY_SCRIPT,
          node: process.execPath,
        },
        out,
      );
    },
  };
}

export const connectCmd = connecting('connect', 'make the client spawn mcpdmcp <caller> (backs up, shows the diff)');
export const disconnectCmd = connecting('disconnect', 'remove that entry again');

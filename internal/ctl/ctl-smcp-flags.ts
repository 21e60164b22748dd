import type { CtlFlag } from './ctl-command.js';

// The table data of `mcpdctl smcp`, apart from the command itself: `mcpdctl --help` and completion read it
// without loading the SMCP Agent and its socket.io client.

/** The sub-commands, for completion. */
export const SMCP_SUBCOMMANDS = ['room', 'tools', 'call', 'desktop', 'finder', 'config', 'read', 'watch'] as const;

/** Every flag of `mcpdctl smcp` (parsed here; also shown by `mcpdctl help smcp` and completed by the shells). */
export const SMCP_FLAGS = {
  office: { type: 'string', value: 'O', help: "the office to join as its agent (default: the named computer's office)" },
  name: { type: 'string', value: 'AGENT', help: 'the agent name (default mcpdctl-<pid>)' },
  'api-key-env': { type: 'string', value: 'NAME', help: 'environment variable holding the API key (default SMCP_API_KEY)' },
  json: { type: 'boolean', help: 'raw answers as JSON (watch: one {event, data} line per notification)' },
  args: { type: 'string', value: 'JSON', help: 'call: the tool arguments, a JSON object' },
  timeout: { type: 'string', value: 'S', help: 'call: timeout in seconds (default 60)' },
  size: { type: 'string', value: 'N', help: 'desktop: at most N windows' },
  window: { type: 'string', value: 'URI', help: 'desktop: only this window' },
  keywords: { type: 'string', value: 'a,b', help: 'finder: keywords' },
  type: { type: 'string', value: 'T', help: 'finder: file type' },
  offset: { type: 'string', value: 'N', help: 'finder: skip N documents' },
  limit: { type: 'string', value: 'N', help: 'finder: at most N documents' },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies Record<string, CtlFlag>;

/** What one `mcpdmcp --http` process holds at most; every value has a flag or variable. */
export interface HttpLimits {
  /** Open MCP sessions; at the cap the oldest idle one is closed for a new one (--max-sessions). */
  maxSessions: number;
  /** A session that sent nothing after `initialize` for this long is closed (MCPD_HTTP_INIT_TIMEOUT_MS). */
  initTimeoutMs: number;
  /** Time to receive a whole request, body included (MCPD_HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Time to receive the request headers (MCPD_HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Open TCP connections (MCPD_HTTP_MAX_CONNECTIONS). */
  maxConnections: number;
  /** Bytes an SSE stream may leave unread before it is closed; the client resumes with Last-Event-ID. */
  sseUnreadBytes: number;
  /** 2026-07-28 `subscriptions/listen` streams at most (MCPD_HTTP_MAX_LISTENS; default half the lanes, always fewer). */
  maxListens: number;
  /** Of those, per client: its address and the clientInfo name it gives (MCPD_HTTP_MAX_LISTENS_PER_CLIENT). */
  maxListensPerClient: number;
  /** How long a 2026-07-28 request waits for a lane before a 503 (MCPD_HTTP_LANE_WAIT_MS). */
  laneWaitMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxSessions: 64,
  initTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  maxConnections: 256,
  sseUnreadBytes: 4 * 1024 * 1024,
  maxListens: 32,
  maxListensPerClient: 8,
  laneWaitMs: 30_000,
};

const ENV: Partial<Record<keyof HttpLimits, string>> = {
  maxSessions: 'MCPD_HTTP_MAX_SESSIONS',
  initTimeoutMs: 'MCPD_HTTP_INIT_TIMEOUT_MS',
  requestTimeoutMs: 'MCPD_HTTP_REQUEST_TIMEOUT_MS',
  headersTimeoutMs: 'MCPD_HTTP_HEADERS_TIMEOUT_MS',
  maxConnections: 'MCPD_HTTP_MAX_CONNECTIONS',
  sseUnreadBytes: 'MCPD_HTTP_SSE_UNREAD_BYTES',
  maxListens: 'MCPD_HTTP_MAX_LISTENS',
  maxListensPerClient: 'MCPD_HTTP_MAX_LISTENS_PER_CLIENT',
  laneWaitMs: 'MCPD_HTTP_LANE_WAIT_MS',
};

/** The defaults overridden by environment variables and flags; a bad value is an error naming it. */
export function httpLimits(env: NodeJS.ProcessEnv, flags: { maxSessions?: string } = {}): HttpLimits {
  const out = { ...DEFAULT_HTTP_LIMITS };
  for (const [key, name] of Object.entries(ENV) as [keyof HttpLimits, string][]) {
    if (env[name] !== undefined) out[key] = positive(env[name], name);
  }
  if (flags.maxSessions !== undefined) out.maxSessions = positive(flags.maxSessions, '--max-sessions');
  // Listen streams hold their lanes for life: fewer of them than lanes, so other 2026-07-28 requests are always served.
  if (env.MCPD_HTTP_MAX_LISTENS === undefined) out.maxListens = Math.floor(out.maxSessions / 2);
  else if (out.maxListens >= out.maxSessions) {
    throw new Error(
      `MCPD_HTTP_MAX_LISTENS (${out.maxListens}) must be below --max-sessions (${out.maxSessions}), the lanes 2026-07-28 requests run on`,
    );
  }
  return out;
}

function positive(text: string | undefined, name: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a whole number above 0, got "${text}"`);
  return n;
}

/** What the core pushes as `status` (StatusView plus the caller list). */
export interface Instance {
  id: string;
  state: string;
  pid?: number;
  inFlight: number;
  startCause: string;
}
export interface Pool {
  fingerprint: string;
  references: string[];
  spec: { name: string };
  instances: Instance[];
  waiting: number;
  suspended: boolean;
  suspendedReason?: string;
  lastError?: string;
}
export interface CallerRow {
  caller: string;
  profile: string;
  sessions: number;
}
export interface StatusEvent {
  status: { configDir: string; configIssues: string[]; pools: Pool[] };
  callers: CallerRow[];
}
export interface LogRecord {
  time: number;
  level: string;
  source: string;
  server?: string;
  event: string;
  message: string;
  fields?: Record<string, unknown>;
}

import type { Strategy } from '../contract/model/spec.js';
import type { ImportedServer } from './import-map.js';

/** The strategy an imported server gets, and the rule that chose it (printed for the user). */
export interface StrategyChoice {
  strategy: Strategy;
  rule: string;
}

interface KnownServer {
  /** Matched against the command line (command and arguments, space-separated). */
  match: RegExp;
  strategy: Strategy;
  why: string;
}

/**
 * Servers whose safe strategy is known. mcpd's default, `stateless` with up to 4 instances, lets several
 * processes run at once: right for servers whose every call stands alone, wrong for one that owns a file.
 * The repository's own profiles (profiles/default.yaml) run server-memory as `singleton` and
 * server-filesystem and server-everything as the default.
 */
const KNOWN: KnownServer[] = [
  {
    match: /(@modelcontextprotocol\/server-memory|mcp-server-memory|server-memory\/dist\/index\.js)\b/,
    strategy: 'singleton',
    why: 'one process owns its knowledge-graph file (profiles/default.yaml runs it so)',
  },
  {
    match: /\bmcp-server-sqlite\b|@modelcontextprotocol\/server-sqlite\b/,
    strategy: 'singleton',
    why: 'one process writes its SQLite database',
  },
  {
    match: /\bmcp-server-git\b|@modelcontextprotocol\/server-git\b|@cyanheads\/git-mcp-server\b/,
    strategy: 'singleton',
    why: 'git locks the repository (.git/index.lock): a second process writing it fails',
  },
  {
    match: /@modelcontextprotocol\/server-sequential-thinking\b/,
    strategy: 'stateful',
    why: "a caller's chain of thoughts lives in one process",
  },
  {
    match: /@playwright\/mcp\b|@modelcontextprotocol\/server-puppeteer\b|chrome-devtools-mcp\b/,
    strategy: 'stateful',
    why: "a caller's browser session lives in one process",
  },
  {
    match: /(@modelcontextprotocol\/server-filesystem|server-filesystem\/dist\/index\.js)\b/,
    strategy: 'stateless',
    why: 'every call reads or writes the files afresh (profiles/default.yaml runs it so)',
  },
  {
    match: /(@modelcontextprotocol\/server-everything|server-everything\/dist\/index\.js)\b/,
    strategy: 'stateless',
    why: 'the reference server keeps nothing a caller relies on between calls (profiles/default.yaml runs it so)',
  },
  {
    match:
      /@modelcontextprotocol\/server-(github|gitlab|postgres|brave-search|fetch|time|slack|google-maps|sentry)\b|\bgithub-mcp-server\b|\bmcp-server-(fetch|time)\b/,
    strategy: 'stateless',
    why: 'every call is a request to an outside service',
  },
];

/** A file a server keeps data in: a database, a JSON(L) store … */
const DATA_FILE = /\.(db|sqlite3?|duckdb|jsonl|ndjson|json|csv|parquet|lmdb|mdb)$/i;
/** Flags that name where a server keeps its data. */
const DATA_FLAG = /^--?(db|db-?path|database|data-?dir|data|storage|store|state|memory-?file|file|path)(=|$)/i;
/** Environment variables that name where a server keeps its data. */
const DATA_ENV = /(DB|DATABASE|SQLITE|STORAGE|STORE|STATE|MEMORY|DATA)/i;
/** A literal local path or file URL (a `${VAR}` alone says nothing). */
const LOCAL_PATH = /^(\/|\.\.?\/|~\/|[A-Za-z]:\\|sqlite:|file:)/;

/** The first argument or env entry that names a file or database the server keeps state in. */
function stateEvidence(s: ImportedServer): string | undefined {
  const args = s.args ?? [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (DATA_FLAG.test(a)) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[i + 1] ?? '');
      if (value && !value.startsWith('-')) return `${a.includes('=') ? a : `${a} ${value}`}`;
    }
    if (DATA_FILE.test(a) && !/\.json$/i.test(a)) return a;
    if (/^(sqlite|file):/.test(a)) return a;
  }
  for (const [k, v] of Object.entries(s.env ?? {})) {
    if (DATA_ENV.test(k) && (LOCAL_PATH.test(v) || DATA_FILE.test(v))) return `${k}=${v}`;
  }
  return undefined;
}

/**
 * A known server's safe strategy; else `singleton` for a server that looks stateful (a file or database
 * path in its args or env: several processes writing one file corrupt it); else mcpd's default.
 */
export function chooseStrategy(s: ImportedServer): StrategyChoice {
  if (s.url) return { strategy: 'stateless', rule: "mcpd's default: a remote server; each call is a request to it" };
  const line = [s.command ?? '', ...(s.args ?? [])].join(' ');
  const known = KNOWN.find((k) => k.match.test(line));
  if (known) return { strategy: known.strategy, rule: `known server ${known.match.exec(line)?.[0] ?? ''}: ${known.why}` };
  const evidence = stateEvidence(s);
  if (evidence) return { strategy: 'singleton', rule: `looks stateful (${evidence}): one process, so no two write the same data` };
  return { strategy: 'stateless', rule: "mcpd's default: no file or database path in its args or env" };
}

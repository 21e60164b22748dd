// The one definition of the code's rooms (docs/architecture.md, "Programs and folders" and "Layers").
// eslint.config.mjs, scripts/check-layers.mjs and scripts/architecture-table.mjs read it, so the rules they
// enforce and the table the docs show cannot drift apart.
//
// Products never import each other: a product imports itself, `contract` (what crosses process boundaries)
// and `shared` (small common pieces). `contract` imports only `shared`; `shared` imports nothing else of
// internal/. Two libraries serve more than one product without crossing a process boundary: `launch`
// (finding a store's core and starting it: gateway, ctl, core) and `store` (reading the YAML store and its
// state files: core and ctl). The one other exception: `ctl` may use the published SMCP Agent library.
// A folder listed earlier wins over a folder that contains it (smcp/agent before smcp).
export const PRODUCTS = {
  core: { dir: 'internal/core/', may: ['store', 'launch', 'contract', 'shared'], what: 'mcpd, the core daemon' },
  gateway: { dir: 'internal/gateway/', may: ['launch', 'contract', 'shared'], what: 'mcpdmcp, the MCP gateway' },
  ctl: {
    dir: 'internal/ctl/',
    may: ['store', 'launch', 'contract', 'shared', 'smcp-agent'],
    what: 'mcpdctl and the operator subcommands of mcpd (open, init, url-handler, validate)',
  },
  'smcp-agent': {
    dir: 'internal/smcp/agent/',
    may: ['contract', 'shared'],
    what: 'the published SMCP Agent library (the mcpd/smcp export)',
  },
  smcp: { dir: 'internal/smcp/', may: ['contract', 'shared'], what: 'mcpd-smcp, the SMCP Server (Socket.IO router, Redis registry)' },
  'desktop-host': { dir: 'internal/desktop-host/', may: ['contract', 'shared'], what: 'mcpd-desktop-host, the Desktop Bridge host' },
  'docs-server': { dir: 'internal/docs-server/', may: ['contract', 'shared'], what: 'mcpd-docs, the dpe:// document server' },
  store: {
    dir: 'internal/store/',
    may: ['launch', 'contract', 'shared'],
    what: 'library: the YAML store (catalog, profiles, callers, runtime, inputs) read, validated and scaffolded, and its state files (tool and package pins)',
  },
  launch: {
    dir: 'internal/launch/',
    may: ['contract', 'shared'],
    what: "library: how a program finds a store, its state directory and its core's socket, and starts that core (common flags, autostart)",
  },
  contract: {
    dir: 'internal/contract/',
    may: ['shared'],
    what: 'what crosses process boundaries: generated gRPC code, the control-plane areas, the Session wire and client, the dashboard events, the audit log format, SMCP protocol types, window:// and dpe:// codecs, the Desktop Bridge contract',
  },
  shared: {
    dir: 'internal/shared/',
    may: [],
    what: 'small common pieces: JSON, errors, backoff, ChurnMap, file trust, the HTTP Host/Origin guard, JSON-RPC lines',
  },
};

// Each program's entry folder and the products it may use (contract and shared always).
export const PROGRAMS = {
  'cmd/mcpd/': ['core', 'ctl', 'launch'],
  'cmd/mcpdmcp/': ['gateway', 'launch'],
  'cmd/mcpdctl/': ['ctl', 'launch'],
  'cmd/mcpd-smcp/': ['smcp'],
  'cmd/mcpd-desktop-host/': ['desktop-host'],
  'cmd/mcpd-docs/': ['docs-server'],
};

// Inside the core, the layers it always had: app → infra → domain. A layer imports itself and the layers
// below it, never one above.
export const CORE_LAYERS = {
  app: { dir: 'internal/core/app/', may: ['infra', 'domain'] },
  infra: { dir: 'internal/core/infra/', may: ['domain'] },
  domain: { dir: 'internal/core/domain/', may: [] },
};

// The door (docs/architecture.md, "The door"): faces reach the core's use cases only through it, so the
// `Core` class of `internal/core/app/core.ts` may be imported only by the composition root and the door.
// A face (gRPC, the Session, the dashboard, the SMCP Computer) is given `Door.for(face)`, a ControlApi.
export const DOOR = {
  core: 'internal/core/app/core.ts',
  mayImportCore: ['internal/core/app/bootstrap.ts', 'internal/core/app/door/'],
};

/** Whether a file may import the Core class (a type import counts: a face typed as Core could be given it). */
export function mayImportCore(relPath) {
  return DOOR.mayImportCore.some((p) => relPath === p || (p.endsWith('/') && relPath.startsWith(p)));
}

// Pure folders and files (no I/O): they import no package but DOMAIN_PACKAGES, and only other pure code
// (shared/ files they use are checked to import no package but DOMAIN_PACKAGES either).
export const PURE_DIRS = [
  'internal/core/domain/',
  'internal/desktop-host/domain/',
  'internal/docs-server/domain/',
  'internal/contract/model/',
  'internal/contract/control/',
  'internal/contract/smcp/',
  'internal/contract/finder/',
  'internal/contract/desktop/',
  'internal/contract/desktop-bridge/types.ts',
  'internal/contract/desktop-bridge/errors.ts',
];
// The only package pure code may import: hashing and random ids are computation, not I/O.
export const DOMAIN_PACKAGES = ['node:crypto'];

const byLength = (names, table) => [...names].sort((a, b) => table[b].dir.length - table[a].dir.length);

/** The product of a path relative to the repository root, or undefined outside internal/. */
export function productOf(relPath) {
  return byLength(Object.keys(PRODUCTS), PRODUCTS).find((name) => relPath.startsWith(PRODUCTS[name].dir));
}

/** The core layer of a path, or undefined outside internal/core/. */
export function coreLayerOf(relPath) {
  return Object.keys(CORE_LAYERS).find((name) => relPath.startsWith(CORE_LAYERS[name].dir));
}

/** Whether a path lies in a pure folder, or in shared/ files that do no I/O (checked by their imports). */
export function isPure(relPath) {
  return PURE_DIRS.some((d) => relPath.startsWith(d));
}

/** The products (and contract/shared) a file at relPath may import, or undefined where no rule applies. */
export function allowedFor(relPath) {
  const program = Object.keys(PROGRAMS).find((d) => relPath.startsWith(d));
  if (program) return [...PROGRAMS[program], 'contract', 'shared'];
  const product = productOf(relPath);
  return product ? [product, ...PRODUCTS[product].may] : undefined;
}

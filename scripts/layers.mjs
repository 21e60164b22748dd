// The one definition of the layers (docs/architecture.md, "Layers"; docs/decisions.md, 35).
// eslint.config.mjs and scripts/check-layers.mjs both read it, so the rule they enforce cannot drift apart.
//
// Direction: cmd → app → infra → domain. A layer imports itself and the layers below it, never one above;
// `gen` (ts-proto output) is wire code that every layer but domain may use.
export const LAYERS = {
  cmd: { dir: 'cmd/', may: ['app', 'infra', 'domain', 'gen'] },
  app: { dir: 'internal/app/', may: ['infra', 'domain', 'gen'] },
  infra: { dir: 'internal/infra/', may: ['domain', 'gen'] },
  domain: { dir: 'internal/domain/', may: [] },
  gen: { dir: 'internal/gen/', may: [] },
};

// The only package domain may import: hashing and random ids are computation, not I/O.
export const DOMAIN_PACKAGES = ['node:crypto'];

/** The layer of a path relative to the repository root, or undefined outside the product. */
export function layerOf(relPath) {
  return Object.keys(LAYERS).find((name) => relPath.startsWith(LAYERS[name].dir));
}

/** The layers `name` must not import. */
export function forbiddenFor(name) {
  return Object.keys(LAYERS).filter((other) => other !== name && !LAYERS[name].may.includes(other));
}

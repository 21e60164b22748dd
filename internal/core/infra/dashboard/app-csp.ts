import type { AppCsp } from '../../../contract/dashboard/dashboard-events.js';

/**
 * The Content-Security-Policy of an MCP App's frame, built from the `_meta.ui.csp` its resource declares,
 * as the MCP Apps specification (2026-01-26, "Content Security Policy Enforcement") lays it out, with one
 * restriction the spec allows: no `'self'`. The frame is served by the dashboard's own listener, so `'self'`
 * would be the dashboard; an app has no business there (single-file apps inline their code).
 */
export function appCsp(csp: AppCsp): string {
  const res = csp.resourceDomains.join(' ');
  const list = (...parts: string[]) => parts.filter(Boolean).join(' ');
  return [
    "default-src 'none'",
    `script-src ${list("'unsafe-inline'", res)}`,
    `style-src ${list("'unsafe-inline'", res)}`,
    `connect-src ${list(csp.connectDomains.join(' ')) || "'none'"}`,
    `img-src ${list('data:', res)}`,
    `font-src ${list('data:', res)}`,
    `media-src ${list('data:', res)}`,
    `frame-src ${csp.frameDomains.join(' ') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp.baseUriDomains.join(' ') || "'none'"}`,
    "form-action 'none'",
    // Only the dashboard may frame it; the sandbox holds even if the page is opened on its own.
    "frame-ancestors 'self'",
    'sandbox allow-scripts',
  ].join('; ');
}

const FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

/**
 * An origin a CSP may name: `scheme://host[:port]`, the host possibly `*.`-prefixed. Nothing else gets into
 * the header (a `;`, a quote or a space would add directives of the server's choosing).
 */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/** The resource's declared CSP domains, checked; an error names the resource, the field and the fix. */
export function declaredCsp(uri: string, meta: unknown): AppCsp {
  const csp = (meta as { ui?: { csp?: unknown } } | undefined)?.ui?.csp;
  const out: AppCsp = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
  if (csp === undefined || csp === null) return out;
  if (typeof csp !== 'object' || Array.isArray(csp)) throw new Error(`${uri}: _meta.ui.csp must be an object of domain lists`);
  for (const field of FIELDS) {
    const v = (csp as Record<string, unknown>)[field];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new Error(`${uri}: _meta.ui.csp.${field} must be an array of origins`);
    v.forEach((d: unknown, i) => {
      if (typeof d !== 'string' || !ORIGIN.test(d))
        throw new Error(
          `${uri}: _meta.ui.csp.${field}[${i}] ${JSON.stringify(d)} is not an origin: the server must declare scheme://host[:port] (e.g. https://api.example.com, https://*.example.com)`,
        );
      out[field].push(d);
    });
  }
  return out;
}

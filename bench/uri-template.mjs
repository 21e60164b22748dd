#!/usr/bin/env node
// uri_template_match: routing a resources/read URI to the template that serves it — our compiled-RegExp
// matcher (internal/core/domain/aggregator/uri-template.ts, cached per template, as the resource index uses it)
// against the MCP SDK's UriTemplate.match (one instance per template, made once), interleaved in one process
// over the same templates and URIs. `--smoke` uses tiny counts.
import { join } from 'node:path';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { REPO, emitComparison, interleaved } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const { matchesUriTemplate } = await import(join(REPO, 'dist/internal/core/domain/aggregator/uri-template.js'));

// Level-1 path templates, as servers list them (both matchers agree on every pair below).
const TEMPLATES = Array.from({ length: 50 }, (_, i) => `repo${i}://{owner}/{name}/issues/{number}`);
const URIS = Array.from({ length: 50 }, (_, i) => `repo${i}://octo/project-${i}/issues/${1000 + i}`);
const sdk = TEMPLATES.map((t) => new UriTemplate(t));
for (let i = 0; i < URIS.length; i++) {
  const ours = matchesUriTemplate(TEMPLATES[i], URIS[i]);
  const theirs = sdk[i].match(URIS[i]) !== null;
  if (!ours || !theirs) throw new Error(`matchers disagree on ${URIS[i]}: ours ${ours}, SDK ${theirs}`);
}

// One "lookup" = find the template of one URI by trying every template in order (what a read does).
const lookupOurs = (k) => {
  const uri = URIS[k % URIS.length];
  for (const t of TEMPLATES) if (matchesUriTemplate(t, uri)) return;
};
const lookupSdk = (k) => {
  const uri = URIS[k % URIS.length];
  for (const t of sdk) if (t.match(uri) !== null) return;
};
const n = smoke ? 200 : 20_000;
const warmup = smoke ? 50 : 5_000;
const [ours, theirs] = await interleaved([lookupOurs, lookupSdk], n, warmup);
emitComparison('uri_template_match_50_templates', n, warmup, ours, theirs, { baseline: 'MCP SDK UriTemplate.match' });

#!/usr/bin/env bash
# Runs the official MCP conformance suite's CLIENT scenarios with mcpd's downstream client as the
# client under test: scripts/conformance-client.mjs, which points a profile at the URL the suite
# passes, starts a core and drives listing and tool calls through it (signing in with `mcpdctl auth`
# where the scenario's server wants OAuth).
#
# Every scenario of `conformance list --client` (what `client --suite all` runs) is run, one after
# the other (or CONFORMANCE_JOBS at a time): the suite would start them all at once, each with its own
# core, which on a small shared machine only measures the machine.
#
# Environment:
#   CONFORMANCE_OUT         results directory (default .tmp/conformance/client-results); emptied first
#   CONFORMANCE_SKIP_BUILD  1 = do not run tsc
#   CONFORMANCE_SCENARIO    run only this scenario
#   CONFORMANCE_TAG         MCPD_TEST_TAG given to the client wrapper (and so to its core, gateway and
#                           mcpdctl), so clean-up can find exactly them; default a fresh one
#   CONFORMANCE_TIMEOUT_MS  per scenario (default 60000)
#   CONFORMANCE_JOBS        scenarios run at once (default 1; the e2e test runs 2)
#   CONFORMANCE_VERSION     the suite's version: 0.1.16 (default) or 0.2.0-alpha.12
#   CONFORMANCE_REQUIREMENTS a spec revision (2026-07-28): run exactly the client scenarios it requires
#                           (`list --client --requirements`), each at that revision's wire (--spec-version)
#
# Writes $CONFORMANCE_OUT/summary.json ({scenario: {passed, failures[], warnings[]}}) and the suite's
# results per scenario. Prints "PASS|FAIL name" lines and "N passed, N failed". Exits 0 when the
# suite ran, non-zero when it could not run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${CONFORMANCE_OUT:-$ROOT/.tmp/conformance/client-results}
TAG=${CONFORMANCE_TAG:-conformance-client-$$-$RANDOM-$RANDOM}
TIMEOUT_MS=${CONFORMANCE_TIMEOUT_MS:-60000}

# shellcheck source=scripts/conformance-install.sh
source "$ROOT/scripts/conformance-install.sh"

if [[ ${CONFORMANCE_SKIP_BUILD:-0} != 1 ]]; then
  printf 'conformance: building\n' >&2
  node "$ROOT/node_modules/typescript/bin/tsc" -p "$ROOT/tsconfig.json"
fi

rm -rf "$OUT"
mkdir -p "$OUT"
WIRE=()
[[ -n ${CONFORMANCE_REQUIREMENTS:-} ]] && WIRE=(--spec-version "$CONFORMANCE_REQUIREMENTS")
if [[ -n ${CONFORMANCE_SCENARIO:-} ]]; then
  SCENARIOS=("$CONFORMANCE_SCENARIO")
elif [[ -n ${CONFORMANCE_REQUIREMENTS:-} ]]; then
  # The scored client scenarios: the list's "Client scenarios" section (extensions are listed apart).
  mapfile -t SCENARIOS < <("$NODE22" "$CLI" list --client --requirements "$CONFORMANCE_REQUIREMENTS" |
    sed -n '/^Client scenarios/,/^$/s/^ *- \([^ ]*\).*/\1/p')
else
  mapfile -t SCENARIOS < <("$NODE22" "$CLI" list --client | sed -n 's/^ *- \([^ ]*\).*/\1/p')
fi
[[ ${#SCENARIOS[@]} -gt 0 ]] || { printf 'conformance: the suite lists no client scenarios\n' >&2; exit 1; }

# The suite's CLI starts once per scenario: Node 22's on-disk compile cache spares it recompiling its
# modules each time (CPU is what a loaded machine lacks). The Node 20 processes it starts ignore it.
COMMAND="MCPD_TEST_TAG=$TAG $(printf '%q' "$(command -v node)") $(printf '%q' "$ROOT/scripts/conformance-client.mjs")"
run_scenario() {
  printf 'conformance: client scenario %s\n' "$1" >&2
  NODE_COMPILE_CACHE="$TOOLS/compile-cache" "$NODE22" "$CLI" client --command "$COMMAND" --scenario "$1" "${WIRE[@]}" --timeout "$TIMEOUT_MS" -o "$OUT" >>"$OUT/suite.log" 2>&1 || true
}
# At most CONFORMANCE_JOBS scenarios at once (default 1). A scenario is a chain of processes that mostly wait
# for each other (the suite's CLI, this wrapper, a core, a gateway, mcpdctl auth), so two at a time keep a
# core busy where one leaves it idle; each has its own servers, ports, core and results directory.
JOBS=${CONFORMANCE_JOBS:-1}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { printf 'conformance: CONFORMANCE_JOBS must be a positive number, got %s\n' "$JOBS" >&2; exit 2; }
for s in "${SCENARIOS[@]}"; do
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
  run_scenario "$s" &
done
wait

# A scenario passes when none of its checks is a FAILURE and the client did not time out (as the suite counts).
node - "$OUT" "${SCENARIOS[@]}" <<'JS'
const { readdirSync, readFileSync, writeFileSync, existsSync } = require('node:fs');
const { dirname, join } = require('node:path');
const [out, ...scenarios] = process.argv.slice(2);
const summary = {};
for (const name of scenarios) {
  const parent = join(out, name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '');
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dirs = existsSync(parent) ? readdirSync(parent).filter((d) => new RegExp(`^${base}-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z$`).test(d)) : [];
  const file = dirs.length ? join(parent, dirs.sort().at(-1), 'checks.json') : '';
  if (!file || !existsSync(file)) {
    summary[name] = { passed: false, failures: ['the suite wrote no checks (see suite.log)'], warnings: [] };
    continue;
  }
  const checks = JSON.parse(readFileSync(file, 'utf8'));
  const line = (c) => `${c.id}: ${c.errorMessage ?? c.description}`;
  const failures = checks.filter((c) => c.status === 'FAILURE').map(line);
  const warnings = checks.filter((c) => c.status === 'WARNING').map(line);
  // When a scenario fails, the wrapper's last words say why (the results directory may be gone by then).
  const stderrFile = join(dirname(file), 'stderr.txt');
  const tail = failures.length && existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8').trim().split('\n').slice(-6) : [];
  summary[name] = { passed: failures.length === 0, failures, warnings, ...(tail.length ? { clientStderrTail: tail } : {}) };
}
writeFileSync(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
for (const [n, s] of Object.entries(summary)) process.stdout.write(`${s.passed ? 'PASS' : 'FAIL'} ${n}${s.passed ? '' : ' — ' + s.failures.join('; ')}\n`);
const passed = Object.values(summary).filter((s) => s.passed).length;
process.stdout.write(`${passed} passed, ${scenarios.length - passed} failed\n`);
JS

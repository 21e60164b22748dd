#!/usr/bin/env bash
# Runs the official MCP conformance suite's CLIENT scenarios with mcpd's downstream client as the
# client under test: scripts/conformance-client.mjs, which points a profile at the URL the suite
# passes, starts a core and drives listing and tool calls through it (signing in with `mcpdctl auth`
# where the scenario's server wants OAuth).
#
# Every scenario of `conformance list --client` (what `client --suite all` runs) is run, one after
# the other (or CONFORMANCE_JOBS at a time). The suite's CLI runs once and starts every scenario's
# servers and client at once; the clients are thin: each hands its scenario to this run's driver
# (scripts/conformance-client-driver.mjs), which runs them in turn, each with its own core.
#
# Environment:
#   CONFORMANCE_OUT         results directory (default .tmp/conformance/client-results); emptied first
#   CONFORMANCE_SKIP_BUILD  1 = do not run tsc
#   CONFORMANCE_SCENARIO    run only this scenario
#   CONFORMANCE_TAG         MCPD_TEST_TAG given to the client wrapper (and so to its core, gateway and
#                           mcpdctl), so clean-up can find exactly them; default a fresh one
#   CONFORMANCE_TIMEOUT_MS  per scenario, from its start (default 60000)
#   CONFORMANCE_JOBS        scenarios run at once (default 1)
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
JOBS=${CONFORMANCE_JOBS:-1}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { printf 'conformance: CONFORMANCE_JOBS must be a positive number, got %s\n' "$JOBS" >&2; exit 2; }
[[ $TIMEOUT_MS =~ ^[1-9][0-9]*$ ]] || { printf 'conformance: CONFORMANCE_TIMEOUT_MS must be a positive number, got %s\n' "$TIMEOUT_MS" >&2; exit 2; }

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

# The driver runs the scenarios the suite hands it, JOBS at a time; it carries the tag, and so do the
# cores, gateways and mcpdctl it starts.
DRIVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mcpd-conformance-driver-XXXXXX")
DRIVER_SOCKET=$DRIVER_DIR/driver.sock
exec {DRIVER_OUT}< <(MCPD_TEST_TAG=$TAG exec node "$ROOT/scripts/conformance-client-driver.mjs" "$DRIVER_SOCKET" "$JOBS" "$TIMEOUT_MS" "${SCENARIOS[@]}")
DRIVER_PID=$!
stop_driver() {
  { kill -TERM "$DRIVER_PID" && wait "$DRIVER_PID"; } 2>/dev/null || true
  rm -rf "$DRIVER_DIR"
}
trap stop_driver EXIT
read -r -u "$DRIVER_OUT" READY || true
[[ ${READY:-} == ready ]] || { printf 'conformance: the scenario driver did not start\n' >&2; exit 1; }

# One CLI for the run (each start of it costs Node 22 most of a second of CPU). It starts every
# scenario's client at once, and a client waits for its turn at the driver, so its timeout (which
# counts that wait) only catches a run that no longer moves; the driver times each scenario itself.
if [[ -n ${CONFORMANCE_SCENARIO:-} ]]; then
  SELECT=(--scenario "$CONFORMANCE_SCENARIO" "${WIRE[@]}")
elif [[ -n ${CONFORMANCE_REQUIREMENTS:-} ]]; then
  SELECT=(--requirements "$CONFORMANCE_REQUIREMENTS") # also runs unscored scenarios, which the driver refuses
else
  SELECT=(--suite all)
fi
COMMAND="MCPD_TEST_TAG=$TAG CONFORMANCE_CLIENT_DRIVER=$(printf '%q' "$DRIVER_SOCKET") $(printf '%q' "$(command -v node)") $(printf '%q' "$ROOT/scripts/conformance-client.mjs")"
printf 'conformance: %d client scenarios, %d at a time\n' "${#SCENARIOS[@]}" "$JOBS" >&2
NODE_COMPILE_CACHE="$TOOLS/compile-cache" "$NODE22" "$CLI" client --command "$COMMAND" "${SELECT[@]}" \
  --timeout $((TIMEOUT_MS * (${#SCENARIOS[@]} + 1))) -o "$OUT" >>"$OUT/suite.log" 2>&1 || true
stop_driver
trap - EXIT

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

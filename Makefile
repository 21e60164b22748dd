# mcpd — the two commands a user needs are `make run` and `make test`.
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.package-lock.json
# The npm wrapper picks the platform's buf binary (no platform hard-coded here).
BUF := node_modules/.bin/buf
CONFIG ?= .
ARGS ?=

.PHONY: all install build run test test-deps test-unit lint fmt proto proto-check bench bench-smoke clean

all: build

# npm ci only when the lock file is newer than the installed tree (or nothing is installed).
$(NODE_MODULES_STAMP): package-lock.json
	npm ci --no-audit --no-fund
	@touch $(NODE_MODULES_STAMP)

install: $(NODE_MODULES_STAMP)

# dist/ is rebuilt only when a compiled source changed since the last build (make compares times),
# and then incrementally (tsc --incremental): an unchanged tree starts at once.
BUILD_STAMP := dist/.build-stamp
SOURCES := scripts/build-bundles.mjs $(shell find cmd internal test/fixtures web -name '*.ts' ! -name '*.test.ts' -o -name '*.tsx' -o -name '*.css' -o -name '*.html' 2>/dev/null) tsconfig.json tsconfig.smcp-types.json
$(BUILD_STAMP): $(NODE_MODULES_STAMP) $(SOURCES)
	@echo "build: $(words $(filter-out tsconfig.json $(NODE_MODULES_STAMP),$?)) source file(s) changed; compiling (incremental)…"
	@node node_modules/typescript/bin/tsc -p tsconfig.json
	@node node_modules/typescript/bin/tsc -p tsconfig.smcp-types.json
	@node scripts/build-dashboard.mjs
	@node scripts/check-dist.mjs --prune
	@node scripts/build-bundles.mjs
	@touch $@

build: $(BUILD_STAMP)
	@echo "build: dist/ is up to date"

# The core's V8 flags: internal/launch/core-node-flags.ts.
## Start the core in the foreground on the repository's profile store.
run: build
	node --max-semi-space-size=64 dist/cmd/mcpd/main.js --config $(CONFIG) $(ARGS)

## The Debian packages the tests and benchmarks use (scripts/test-packages.txt): installed when missing and
## this user may (root, or sudo -n); else one message naming the command to run. Nothing happens when all are there.
test-deps:
	@scripts/test-deps.sh

## Every test (unit + real-process end to end), then a plain `N passed, N failed` line. `build` just ran, so
## the tests' global setup need not check dist/ again (MCPD_TEST_DIST_FRESH).
test: test-deps build
	MCPD_TEST_DIST_FRESH=1 node scripts/run-tests.mjs $(ARGS)

FORMATTED := "cmd/**/*.ts" "internal/**/*.ts" "test/**/*.ts" "bench/**/*.{ts,mjs}" "scripts/**/*.mjs" "web/**/*.{ts,tsx,css}"

# Type-aware ESLint (eslint.config.mjs): floating/misused promises, unused code, the layer rules.
LINTED := cmd internal test bench scripts web eslint.config.mjs

lint: install proto-check
	npx tsc -p tsconfig.test.json --noEmit
	npx tsc -p web/tsconfig.json
	npx eslint $(LINTED)
	node scripts/check-layers.mjs
	node scripts/check-links.mjs
	node scripts/architecture-table.mjs --check
	node scripts/door-table.mjs --check
	npx knip --include files,exports,types,dependencies,unlisted,binaries
	npx prettier --check $(FORMATTED) --log-level warn || (echo "run 'make fmt' and commit the result"; exit 1)

## Formats the sources (generated code under internal/contract/gen is left as generated: .prettierignore).
fmt: install
	npx prettier --write $(FORMATTED) --log-level warn

## Regenerate internal/contract/gen from proto/ (ts-proto through buf) and the descriptor set used by reflection.
proto: install
	$(BUF) generate
	@tmp=$$(mktemp -d); $(BUF) build -o $$tmp/set.binpb && node scripts/embed-descriptor.mjs $$tmp/set.binpb internal/contract/gen/descriptor-set.ts; rm -rf $$tmp

## Fails when internal/contract/gen differs from what `make proto` would write.
proto-check: install
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	$(BUF) generate -o $$tmp; \
	$(BUF) build -o $$tmp/set.binpb && node scripts/embed-descriptor.mjs $$tmp/set.binpb $$tmp/internal/contract/gen/descriptor-set.ts; \
	if ! diff -r $$tmp/internal/contract/gen internal/contract/gen >/dev/null; then \
	  echo "internal/contract/gen is stale: run 'make proto' and commit the result"; diff -r $$tmp/internal/contract/gen internal/contract/gen | head -20; exit 1; \
	fi; echo "internal/contract/gen is fresh"

## Every benchmark, one JSON line per case (numbers go to docs/benchmarks.md).
bench: test-deps build
	node bench/run.mjs $(ARGS)
	node bench/context.mjs $(ARGS)
	node bench/docs.mjs $(ARGS)
	node bench/desktop-bridge.mjs $(ARGS)
	node bench/smcp-computer.mjs $(ARGS)
	node bench/smcp-server.mjs $(ARGS)
	node bench/dashboard.mjs $(ARGS)
	node bench/catalog.mjs $(ARGS)
	node bench/uri-template.mjs $(ARGS)
	node bench/churn-map-gc.mjs $(ARGS)
	node bench/sandbox.mjs $(ARGS)

## The same with tiny counts: proves the benchmarks run (CI).
bench-smoke: test-deps build
	node bench/run.mjs --smoke
	node bench/context.mjs --smoke
	node bench/docs.mjs --smoke
	node bench/desktop-bridge.mjs --smoke
	node bench/smcp-computer.mjs --smoke
	node bench/smcp-server.mjs --smoke
	node bench/dashboard.mjs --smoke
	node bench/catalog.mjs --smoke
	node bench/uri-template.mjs --smoke
	node bench/churn-map-gc.mjs --smoke

clean:
	rm -rf dist

/**
 * The V8 flags the core runs with. They go on its command line — V8 sizes its heap when the process starts,
 * and `v8.setFlagsFromString` later leaves the sizes as they were — so every way a core is started gives
 * them: autostart (gateways, `mcpd open`), `make run`, the `mcpd` executable's first line (kept in step
 * by core-node-flags.test.ts), the test worlds and the benchmarks.
 *
 * `--max-semi-space-size=64` lets the young generation grow to 64 MiB per semi-space when much of it
 * survives, as it does when many calls are in flight: under 16 concurrent tool calls the core spent 2–23 µs
 * less CPU a call (median 8, about a tenth) than with V8's 16 MiB in ten of ten interleaved pairs, its
 * resident size at the end of the load the same; 32 MiB gained nothing (decision 84, docs/benchmarks.md).
 */
export const CORE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

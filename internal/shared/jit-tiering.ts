import { setFlagsFromString } from 'node:v8';

/**
 * V8 optimizes a function once it has run through an interrupt budget of bytecode a few times (and has
 * seen no new types for a while). The core and the gateway run a dozen small functions once per call, so
 * with V8's default budget (66 KB) they stayed in the baseline tier for the first 4,000–6,000 tool calls,
 * at two to three times the CPU a call of the optimized code: measured per 500 calls of a 1 KB echo, the
 * core's CPU fell from 760 to about 180 µs a call only after some 5,000 calls (docs/benchmarks.md). A
 * gateway lives as long as its client's session, which often makes fewer calls than that. A quarter of
 * the budget and a shorter wait after a cache change get both there in about 1,500 calls, to the same CPU
 * a call once warm.
 */
const INTERRUPT_BUDGET_BYTES = 16 * 1024;
/**
 * After a function's inline caches change, V8 waits this many calls before optimizing it (default 500): a
 * call's code meets a few new shapes in its first thousand calls, and each wait started again.
 */
const CALLS_AFTER_IC_UPDATE = 100;

/**
 * Sets both for this process. Called by the long-running programs: `mcpdmcp` at start, the core after its
 * first 100 tool calls (`internal/core/app/door/tiering.ts`: set at its start, the core spent 60 ms more CPU starting,
 * and 70–80 ms more over a short session, optimizing code it barely runs). V8 reads the flags whenever it
 * refills a function's budget, so code loaded before the call gets them at its next refill.
 */
export function tierUpSooner(): void {
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET_BYTES} --minimum-invocations-after-ic-update=${CALLS_AFTER_IC_UPDATE}`);
}

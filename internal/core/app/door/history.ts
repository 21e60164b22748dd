import type { CallerHistories } from '../../domain/history/tool-call-history.js';
import type { JsonObject } from '../../../shared/json.js';
import { isoTime } from '../../../shared/iso-time.js';
import type { CoreLog } from '../area-deps.js';
import type { CallEnd, DoorCall, Interceptor } from './interceptor.js';

/**
 * The caller's tool-call history and the `tool call` log line. Once per tools/call that reached a tool,
 * whichever face it came by: caller, tool, outcome, duration (the log never has the arguments). Sequence
 * numbers are given when a record is made, so they have no gaps.
 */
export function historyInterceptor(history: CallerHistories, log: CoreLog): Interceptor {
  let seq = 0;
  const ended = (call: DoorCall, end: CallEnd) => {
    const tool = call.note.tool;
    if (!tool) return; // never reached a tool (unknown name, refused, the core's own Finder or search tool)
    const success = end.error === undefined && !end.isError;
    const error = end.error ? end.error.message : null;
    history.record(call.caller, {
      timestamp: isoTime(call.startedAt),
      req_id: `${++seq}`,
      server: tool.server,
      tool: tool.downstreamName,
      parameters: call.args as JsonObject, // a tools/call's arguments are an object (checked by every face)
      timeout: call.timeoutMs ?? null,
      success,
      error,
    });
    // An error result (isError) is the tool's answer; a thrown error means no answer came.
    const outcome = success ? 'ok' : error === null ? 'error result' : 'failed';
    log('info', 'tool call', {
      caller: call.caller,
      tool: tool.name,
      server: tool.server,
      fingerprint: tool.fingerprint,
      outcome,
      durationMs: end.durationMs,
      message: `${call.caller} called ${tool.name}: ${outcome} in ${end.durationMs} ms`,
    });
  };
  return {
    name: 'history',
    enter(call) {
      if (call.method !== 'tools/call') return undefined;
      return (end) => ended(call, end);
    },
  };
}

import type { PromptsApi, RequestOpts, ResourcesApi } from '../../contract/control/control-areas.js';
import type { CallAdmission } from '../../contract/control/control.js';

/**
 * The area calls that do work on a server — `resources/read`, `prompts/get`, `completion/complete` —
 * pass the stop's gate inside the core, as `tools/call` does (`Core.callTool`): every face that reaches
 * the core through `ControlApi` (gRPC, the Session, the dashboard's socket, the SMCP Computer) is
 * refused with the same error once a stop began, and its calls in flight are waited for while it drains.
 * Lists, watches and subscriptions are not calls and pass straight through.
 */
export function gatedResources(inner: ResourcesApi, gate: CallAdmission): ResourcesApi {
  return {
    list: (caller, cursor, size) => inner.list(caller, cursor, size),
    listTemplates: (caller, cursor, size) => inner.listTemplates(caller, cursor, size),
    watch: (caller, etag) => inner.watch(caller, etag),
    read: (caller, uri, opts) => admit(gate, 'resources/read', opts, (o) => inner.read(caller, uri, o)),
    subscribe: (caller, uri, signal) => inner.subscribe(caller, uri, signal),
    channels: (caller) => inner.channels(caller),
  };
}

export function gatedPrompts(inner: PromptsApi, gate: CallAdmission): PromptsApi {
  return {
    list: (caller, cursor, size) => inner.list(caller, cursor, size),
    watch: (caller, etag) => inner.watch(caller, etag),
    get: (caller, name, args, opts) => admit(gate, 'prompts/get', opts, (o) => inner.get(caller, name, args, o)),
    complete: (caller, params, opts) => admit(gate, 'completion/complete', opts, (o) => inner.complete(caller, params, o)),
  };
}

/** One call through the gate: its signal also ends when a stop's grace period does. */
function admit<T>(gate: CallAdmission, what: string, opts: RequestOpts, fn: (opts: RequestOpts) => Promise<T>): Promise<T> {
  return gate.run(what, opts.signal, (signal) => fn({ ...opts, signal }), opts.abort);
}

import { AREAS } from '../../../contract/areas/all-areas.js';
import type { Admission } from '../../../contract/areas/area.js';
import type { ControlApi, Door, Face } from '../../../contract/control/control.js';
import { promiseOf, viaPromise, type Cancellable, type Done } from '../../domain/call-adapters.js';
import type { JsonObject } from '../../../shared/json.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import type { Core } from '../core.js';
import { FaceView } from './face-view.js';
import type { CallEnd, CallNote, DoorCall, Interceptor } from './interceptor.js';
import type { CallSpec, Passage } from './passage.js';

const DECLARED = new Map<string, Admission>(AREAS.flatMap((a) => a.methods.map((m) => [m.name, m.admission] as const)));

/** A method the door passes must be declared in an area: its admission comes from there. */
export function admissionOf(method: string): Admission {
  const a = DECLARED.get(method);
  if (a === undefined) throw new Error(`the door passes ${method}, which no area in internal/contract/areas/ declares`);
  return a;
}

const NOTHING_TO_CANCEL: Cancellable = { cancel: () => {} };

/**
 * The door into the core (docs/architecture.md, "The door"): every face's calls pass here, through the
 * interceptors composed once (bootstrap.ts), to the core's use cases. A call is entered with a completion
 * callback (`pass`); the promise forms are wrappers on top. The happy path is synchronous: nothing here
 * allocates a promise or a signal for a tool call.
 */
export class CoreDoor implements Door, Passage {
  private readonly views = new Map<Face, ControlApi>();
  private readonly entering: readonly Interceptor[];
  private readonly filters: readonly Interceptor[];
  private readonly admitting: readonly Interceptor[];

  constructor(
    readonly core: Core,
    interceptors: readonly Interceptor[],
  ) {
    this.entering = interceptors.filter((i) => i.enter);
    this.filters = interceptors.filter((i) => i.visible);
    this.admitting = interceptors.filter((i) => i.admit);
  }

  for(face: Face): ControlApi {
    let v = this.views.get(face);
    if (!v) this.views.set(face, (v = new FaceView(face, this)));
    return v;
  }

  /** The call as interceptors see it. */
  callOf(face: Face, spec: CallSpec, note: CallNote = {}): DoorCall {
    const call: DoorCall = {
      face,
      caller: spec.caller,
      client: spec.client,
      method: spec.method,
      admission: admissionOf(spec.method),
      target: spec.target,
      args: spec.args,
      timeoutMs: spec.timeoutMs,
      startedAt: Date.now(),
      note,
    };
    // Only where something hides entries: the happy path allocates nothing more.
    if (this.filters.length > 0) note.visible = (name, def) => this.filters.every((f) => f.visible?.(call, name, def) !== false);
    if (this.admitting.length > 0) note.admit = (tool) => this.admit(call, tool);
    return call;
  }

  private admit(call: DoorCall, tool: ToolEntry): Error | undefined {
    for (const i of this.admitting) {
      const refused = i.admit?.(call, tool);
      if (refused) return (call.note.refused = refused);
    }
    return undefined;
  }

  /**
   * The one entry: the interceptors see `call` enter (any may refuse it), `run` starts the use case with a
   * completion callback, and `done` hears how it ended first, then the interceptors (in the same turn): the
   * answer is on its way before the bookkeeping (history, log line, audit record, metrics) is done, which
   * takes that work off the hop's latency. `done` is called once, possibly before this returns.
   */
  pass<T>(call: DoorCall, run: (done: Done<T>) => Cancellable, done: Done<T>): Cancellable {
    let exits: Array<(end: CallEnd) => void> | undefined;
    let cutoff: Error | undefined;
    let inner: Cancellable | undefined;
    let over = false;
    const cancel = (reason: Error) => {
      if (over) return;
      cutoff ??= reason;
      inner?.cancel(reason);
    };
    for (const i of this.entering) {
      const r = i.enter?.(call, cancel);
      if (r === undefined) continue;
      if (r instanceof Error) {
        over = true;
        const end: CallEnd = { error: r, isError: false, refused: true, durationMs: 0 };
        answerThenEnd(exits, end, () => done.error(r));
        return NOTHING_TO_CANCEL;
      }
      (exits ??= []).push(r);
    }
    const finish = (error: Error | undefined, value?: T) => {
      if (over) return;
      over = true;
      const refused = error !== undefined && error === call.note.refused;
      const end: CallEnd = { error, isError: isErrorResult(value), refused, durationMs: Date.now() - call.startedAt };
      answerThenEnd(exits, end, error ? () => done.error(error) : () => done.result(value as T));
    };
    inner = run({
      result: (v) => finish(undefined, v),
      // A call cut off (the stop's grace period ended) says so, whatever the layers below made of the cancel.
      error: (e) => finish(cutoff ?? e),
    });
    if (cutoff !== undefined && !over) inner.cancel(cutoff);
    return { cancel: (reason) => over || inner?.cancel(reason) };
  }

  /** `pass` for a use case that returns a promise: its signal ends when the caller's does or the call is cut off. */
  passAsync<T>(call: DoorCall, signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return promiseOf<T>((done) => this.pass(call, (d) => viaPromise(run, d), done), signal);
  }

  /** A subscription or watch opened through the door: interceptors see it open (and may refuse it). */
  open<T>(call: DoorCall, open: () => T): T {
    let value: T | undefined;
    let failed: Error | undefined;
    this.pass<T>(
      call,
      (d) => {
        try {
          d.result(open());
        } catch (e) {
          d.error(e as Error);
        }
        return NOTHING_TO_CANCEL;
      },
      { result: (v) => (value = v), error: (e) => (failed = e) },
    );
    if (failed) throw failed;
    return value as T;
  }

  /** A list, with what an interceptor hides from this caller left out. */
  visible<T>(call: DoorCall, items: readonly T[], nameOf: (item: T) => string, definitionOf?: (item: T) => JsonObject): T[] {
    if (this.filters.length === 0) return items as T[];
    return items.filter((item) => {
      const name = nameOf(item);
      const def = definitionOf?.(item);
      return this.filters.every((f) => f.visible?.(call, name, def) !== false);
    });
  }

  get filtering(): boolean {
    return this.filters.length > 0;
  }

  visibilityTag(): string {
    let tag = '';
    for (const f of this.filters) {
      const e = f.visibility?.epoch() ?? 0;
      if (e > 0) tag += `~${f.name}${e}`;
    }
    return tag;
  }

  onVisibilityChange(listener: () => void): () => void {
    const offs = this.filters.map((f) => f.visibility?.onChange(listener) ?? (() => {}));
    return () => offs.forEach((off) => off());
  }
}

/** The face's callback, then the interceptors' ends — also when the callback throws (the stop's gate must be left). */
function answerThenEnd(exits: Array<(end: CallEnd) => void> | undefined, end: CallEnd, answer: () => void): void {
  if (!exits) return answer();
  try {
    answer();
  } finally {
    endAll(exits, end);
  }
}

function endAll(exits: Array<(end: CallEnd) => void>, end: CallEnd): void {
  for (let k = exits.length - 1; k >= 0; k--) {
    try {
      exits[k]?.(end);
    } catch {
      // an interceptor's bookkeeping must never fail the call it observed
    }
  }
}

function isErrorResult(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as JsonObject).isError === true;
}

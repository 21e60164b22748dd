import type { Admission } from '../../../contract/areas/area.js';
import type { Face } from '../../../contract/control/control.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import type { JsonObject } from '../../../shared/json.js';

/**
 * One call as the door's interceptors see it: who asks (caller, face, client), what (the area method's
 * name, its declared admission, the target: a tool's name, a resource's URI, a prompt's name, a desktop
 * window), with which arguments — never changed by an interceptor.
 */
export interface DoorCall {
  readonly face: Face;
  readonly caller: string;
  /** The MCP client's name, where the face knows it (the Session's hello). */
  readonly client: string | undefined;
  /** The area method (`tools/call`, `resources/read`, `mcpd/desktop/read` …; docs/architecture.md, "Areas"). */
  readonly method: string;
  /** From the method's declaration in `internal/contract/areas/`: `core` calls pass the stop's gate. */
  readonly admission: Admission;
  readonly target: string | undefined;
  readonly args: unknown;
  /** The deadline the face asked for (ms); undefined leaves it to the server's `callTimeoutSeconds`. */
  readonly timeoutMs: number | undefined;
  /** Epoch ms when the call entered the door. */
  readonly startedAt: number;
  /** What the use case found out on the way (the tool it reached), for what runs when the call ends. */
  readonly note: CallNote;
}

/** Filled in by a use case as the call goes: read by interceptors when it ends. */
export interface CallNote {
  /** A tools/call: the entry (server, fingerprint, downstream name) it was sent to. */
  tool?: ToolEntry;
  /**
   * Set by the door where an interceptor hides entries from this caller: whether a tool (its name, and its
   * definition where the use case has it) is visible. A use case that answers with tool names of its own
   * (tool search) leaves out what the lists leave out.
   */
  visible?: (name: string, definition?: JsonObject) => boolean;
  /**
   * Set by the door where an interceptor looks at the tool a call reached: the use case asks it once the
   * name is resolved to an entry, before anything is sent (also for the tool search mode's call tool, whose
   * target the door never saw). An Error refuses the call.
   */
  admit?: (tool: ToolEntry) => Error | undefined;
  /**
   * A call of tool search mode's call tool: the tool it names and that tool's arguments, set by the use case
   * before resolving it. Policy judges that tool as it judges a direct call; the audit log records it.
   */
  through?: NamedCall;
  /** The refusal `admit` gave, so the call's end says it was refused (not failed). */
  refused?: Error;
}

/** The tool a call tool's call names, as its caller named it, and the arguments for it. */
interface NamedCall {
  readonly tool: string;
  readonly args: JsonObject;
}

/** How a call ended. */
export interface CallEnd {
  /** Thrown (refused, failed, cancelled); undefined when a result came. */
  readonly error: Error | undefined;
  /** A result that is an MCP error result (`isError: true`): the tool's answer, not a failure to answer. */
  readonly isError: boolean;
  /** Refused by an interceptor before anything ran. */
  readonly refused: boolean;
  readonly durationMs: number;
}

/**
 * What an interceptor returns when a call enters: an Error refuses the call (the face gets that error;
 * interceptors after it and the use case never see the call); a function is called once when the call
 * ends; undefined: nothing to do for this call.
 */
type Entered = Error | ((end: CallEnd) => void) | undefined;

/**
 * One concern applied to every call of every face, composed once in the composition root
 * (`internal/core/app/bootstrap.ts`, `doorInterceptors`). Adding one is a file and a line there.
 */
export interface Interceptor {
  readonly name: string;
  /**
   * Sees the call before it runs. `cancel` ends it early with a reason (the stop's cutoff); the face then
   * gets that reason as the call's error.
   */
  enter?(call: DoorCall, cancel: (reason: Error) => void): Entered;
  /**
   * Lists (tools, resources, templates, prompts): whether an entry, by its name (a resource's URI), stays
   * in what this call returns; `definition` is the entry as listed where the list has one (a tool's MCP
   * definition). Absent: everything stays.
   */
  visible?(call: DoorCall, name: string, definition?: JsonObject): boolean;
  /**
   * A tools/call once its name is resolved to the tool it reaches, before anything is sent: an Error
   * refuses it. For what only the tool's definition says, and for the tool a call tool's call names
   * (`call.note.through`), whose name `enter` never saw.
   */
  admit?(call: DoorCall, tool: ToolEntry): Error | undefined;
  /**
   * What `visible` hides can change while the lists do not (a reload of the rules): `epoch` moves when it
   * does and `onChange` hears it, so watches send their snapshot again and clients get `list_changed`.
   */
  readonly visibility?: VisibilityEpoch;
}

interface VisibilityEpoch {
  /** 0 until what is hidden first depends on anything; then moves with every change. */
  epoch(): number;
  onChange(listener: () => void): () => void;
}

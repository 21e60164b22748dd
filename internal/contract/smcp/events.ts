/**
 * A2C-SMCP event names (smcp-protocol.md §1.2, plus the Finder and read_resource additions).
 * `client:*` goes Agent → Server → one Computer, `server:*` goes to the Server, `notify:*` is broadcast to an office.
 */
export const SMCP_NAMESPACE = '/smcp';

/** Every routed request an agent may send; each is answered by the named computer's ack. */
export const CLIENT_EVENTS = {
  toolCall: 'client:tool_call',
  getTools: 'client:get_tools',
  getDesktop: 'client:get_desktop',
  getConfig: 'client:get_config',
  getFinder: 'client:get_finder',
  /** Our extension: the transport of the Finder guide's agent-side navigation helpers. */
  readResource: 'client:read_resource',
} as const;
export type ClientEvent = (typeof CLIENT_EVENTS)[keyof typeof CLIENT_EVENTS];

export const SERVER_EVENTS = {
  joinOffice: 'server:join_office',
  leaveOffice: 'server:leave_office',
  listRoom: 'server:list_room',
  toolCallCancel: 'server:tool_call_cancel',
  updateConfig: 'server:update_config',
  updateToolList: 'server:update_tool_list',
  updateDesktop: 'server:update_desktop',
  updateFinder: 'server:update_finder',
  /** Our extension: the offices holding a computer of that name (`mcpdctl smcp` without `--office`). */
  findComputer: 'server:find_computer',
} as const;
export type ServerEvent = (typeof SERVER_EVENTS)[keyof typeof SERVER_EVENTS];

export const NOTIFY_EVENTS = {
  enterOffice: 'notify:enter_office',
  leaveOffice: 'notify:leave_office',
  updateConfig: 'notify:update_config',
  updateToolList: 'notify:update_tool_list',
  updateDesktop: 'notify:update_desktop',
  updateFinder: 'notify:update_finder',
  toolCallCancel: 'notify:tool_call_cancel',
} as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[keyof typeof NOTIFY_EVENTS];

/** `server:update_*` a computer sends, and the `notify:*` the office receives for it. */
export const UPDATE_TO_NOTIFY: Readonly<Record<string, NotifyEvent>> = {
  [SERVER_EVENTS.updateConfig]: NOTIFY_EVENTS.updateConfig,
  [SERVER_EVENTS.updateToolList]: NOTIFY_EVENTS.updateToolList,
  [SERVER_EVENTS.updateDesktop]: NOTIFY_EVENTS.updateDesktop,
  [SERVER_EVENTS.updateFinder]: NOTIFY_EVENTS.updateFinder,
};

const CLIENT_SET: ReadonlySet<string> = new Set(Object.values(CLIENT_EVENTS));
const SERVER_SET: ReadonlySet<string> = new Set(Object.values(SERVER_EVENTS));
const NOTIFY_SET: ReadonlySet<string> = new Set(Object.values(NOTIFY_EVENTS));

export function isClientEvent(e: string): e is ClientEvent {
  return CLIENT_SET.has(e);
}
export function isServerEvent(e: string): e is ServerEvent {
  return SERVER_SET.has(e);
}
export function isNotifyEvent(e: string): e is NotifyEvent {
  return NOTIFY_SET.has(e);
}

/** Ack timeout of every routed `client:*` except `client:tool_call`, which uses the request's own `timeout`. */
export const DEFAULT_ROUTE_TIMEOUT_MS = 30_000;

/** Most offices `server:find_computer` reports: enough to tell "one" from "several", bounded per request. */
export const FIND_COMPUTER_MAX_OFFICES = 100;

/** The header the API key travels in (SDK default, compared case-insensitively as all HTTP headers). */
export const API_KEY_HEADER = 'x-api-key';

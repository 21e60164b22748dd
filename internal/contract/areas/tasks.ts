import type { TaskView } from '../model/tasks.js';
import { detailedTask } from '../model/tasks.js';
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import { McpdError } from '../../shared/errors.js';
import { absent, method, type Area } from './area.js';
import { callerOf, requiredString } from './params.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { encodeJson } from '../session/json-bytes.js';
import { watchTasksSession } from './task-session-watch.js';

interface TaskReq {
  taskId: string;
}

interface UpdateReq extends TaskReq {
  inputResponses: JsonObject;
}

/** What a 2026-07-28 client gets for tasks/update and tasks/cancel: an empty ack (SEP-2663). */
const ACK: JsonObject = { resultType: 'complete' };

const GATEWAY_OWN = absent(
  'the 2026-07-28 layer forwards tasks/* itself (gateway/era2026/tasks.ts): only a client that negotiated the tasks extension may use them',
);

function taskReq(params: JsonObject, m: string): TaskReq {
  return { taskId: requiredString(params, 'taskId', m) };
}

/**
 * Tasks the core hosts (SEP-2663), per caller: get, update (answers to a task's input requests), cancel,
 * watch (the changes of some, pushed) and the caller's list (mcpd's own: SEP-2663 has no tasks/list).
 */
export const tasksArea: Area = {
  name: 'tasks',
  methods: [
    method<TaskReq, TaskView>({
      name: 'tasks/get',
      admission: 'free',
      routed: false,
      invoke: (api, req, ctx) => Promise.resolve(api.tasks.get(ctx.caller, req.taskId)),
      session: { fromMcp: (p) => taskReq(p, 'tasks/get'), toMcp: (t) => detailedTask(t) },
      grpc: {
        rpc: 'getTask',
        fromPb: (r: pb.GetTaskRequest) => ({ caller: callerOf(r.caller), req: { taskId: r.taskId } }),
        toPb: (t): pb.GetTaskResponse => ({ task: taskToPb(t) }),
      },
      gateway: GATEWAY_OWN,
    }),
    method<UpdateReq, JsonObject>({
      name: 'tasks/update',
      admission: 'free',
      routed: false,
      invoke: (api, req, ctx) => {
        api.tasks.update(ctx.caller, req.taskId, req.inputResponses);
        return Promise.resolve(ACK);
      },
      session: {
        fromMcp: (p) => {
          const r = p.inputResponses;
          if (!isJsonObject(r)) {
            throw new McpdError('INVALID_ARGUMENT', 'tasks/update needs "inputResponses", an object keyed as the task\'s inputRequests', {
              specCode: -32602,
            });
          }
          return { ...taskReq(p, 'tasks/update'), inputResponses: r };
        },
      },
      grpc: absent("answering a task's input requests is an MCP client's part"),
      gateway: GATEWAY_OWN,
    }),
    method<TaskReq, JsonObject>({
      name: 'tasks/cancel',
      admission: 'free',
      routed: false,
      invoke: async (api, req, ctx) => {
        await api.tasks.cancel(ctx.caller, req.taskId);
        return ACK;
      },
      session: { fromMcp: (p) => taskReq(p, 'tasks/cancel') },
      grpc: {
        rpc: 'cancelTask',
        fromPb: (r: pb.CancelTaskRequest) => ({ caller: callerOf(r.caller), req: { taskId: r.taskId } }),
        toPb: (): pb.CancelTaskResponse => ({}),
      },
      gateway: GATEWAY_OWN,
    }),
    method({
      name: 'mcpd/tasks/watch',
      admission: 'free',
      routed: false,
      session: { handle: watchTasksSession },
      grpc: absent('GetTask answers a task as it is now; a watch is the 2026-07-28 listen stream of mcpdmcp'),
      gateway: absent(
        'the 2026-07-28 layer watches tasks for a subscriptions/listen stream that names taskIds (gateway/era2026/listen.ts)',
      ),
    }),
    method<object, TaskView[]>({
      name: 'mcpd/tasks/list',
      admission: 'free',
      routed: false,
      invoke: (api, _req, ctx) => Promise.resolve(api.tasks.list(ctx.caller)),
      session: { fromMcp: () => ({}), toMcp: (tasks) => ({ tasks: tasks.map(detailedTask) }) },
      grpc: {
        rpc: 'listTasks',
        fromPb: (r: pb.ListTasksRequest) => ({ caller: callerOf(r.caller), req: {} }),
        toPb: (tasks): pb.ListTasksResponse => ({ tasks: tasks.map(taskToPb) }),
      },
      gateway: absent('SEP-2663 has no tasks/list (removed): a client keeps the ids it was given'),
    }),
  ],
};

function taskToPb(t: TaskView): pb.TaskInfo {
  return {
    taskId: t.taskId,
    status: t.status,
    tool: t.tool ?? '',
    statusMessage: t.statusMessage ?? '',
    createdAtUnixMs: Date.parse(t.createdAt),
    lastUpdatedAtUnixMs: Date.parse(t.lastUpdatedAt),
    ttlMs: t.ttlMs,
    taskJson: encodeJson(detailedTask(t)),
  };
}

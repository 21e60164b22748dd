import { credentials, makeGenericClientConstructor, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { McpdError } from '../../shared/errors.js';
import { ControlPlaneClient, ControlPlaneService } from '../gen/mcpd/control/v1/control.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';
import { grpcAddress } from '../session/socket-path.js';
import { decodeListToolsResponse } from './list-tools-decoder.js';
import { fromServiceError } from '../session/status-map.js';

/** The generated client with listings decoded without copies (see list-tools-decoder.ts). */
const Client = makeGenericClientConstructor(
  { ...ControlPlaneService, listTools: { ...ControlPlaneService.listTools, responseDeserialize: decodeListToolsResponse } },
  'mcpd.control.v1.ControlPlane',
) as unknown as typeof ControlPlaneClient;

/** A control-plane client on a unix socket; errors come back as McpdError. */
export function createControlClient(socketPath: string): ControlPlaneClient {
  return new Client(grpcAddress(socketPath), credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    // A full tool listing is a few hundred KB: with HTTP/2's 64 KB default window the core would stop
    // for a WINDOW_UPDATE round trip several times per response.
    'grpc-node.flow_control_window': 16 * 1024 * 1024,
    'grpc.enable_channelz': 0,
    // Reconnect promptly after a core restart instead of grpc-js's long default backoff.
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1000,
  });
}

type UnaryFn<Req, Res> = (req: Req, cb: (err: ServiceError | null, res: Res) => void) => unknown;

/** Promise form of a generated unary method, bound to its client. */
export function callUnary<Req, Res>(fn: UnaryFn<Req, Res>, req: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    fn(req, (err, res) => (err ? reject(fromServiceError(err)) : resolve(res)));
  });
}

/** Collects a server stream's messages until it ends; rejects with an McpdError. */
export function collectStream<T>(s: ClientReadableStream<T>, onItem: (item: T) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    s.on('data', onItem);
    s.on('end', () => resolve());
    s.on('error', (e: ServiceError) => reject(fromServiceError(e)));
  });
}

export async function waitForReady(client: ControlPlaneClient, timeoutMs: number): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) =>
      err ? reject(new McpdError('UNAVAILABLE', `no mcpd core answered within ${timeoutMs} ms (${err.message})`)) : resolve(),
    ),
  );
}

/** Promise-returning unary calls for tools like mcpdctl. */
export class ControlCalls {
  constructor(readonly client: ControlPlaneClient) {}
  getInfo(): Promise<pb.GetInfoResponse> {
    return callUnary<pb.GetInfoRequest, pb.GetInfoResponse>((r, cb) => this.client.getInfo(r, cb), {});
  }
  status(): Promise<pb.RuntimeStatus> {
    return callUnary<pb.GetRuntimeStatusRequest, pb.RuntimeStatus>((r, cb) => this.client.getRuntimeStatus(r, cb), {});
  }
  listTools(req: pb.ListToolsRequest): Promise<pb.ListToolsResponse> {
    return callUnary<pb.ListToolsRequest, pb.ListToolsResponse>((r, cb) => this.client.listTools(r, cb), req);
  }
  reload(): Promise<pb.ReloadResponse> {
    return callUnary<pb.ReloadRequest, pb.ReloadResponse>((r, cb) => this.client.reload(r, cb), {});
  }
  stop(): Promise<pb.StopResponse> {
    return callUnary<pb.StopRequest, pb.StopResponse>((r, cb) => this.client.stop(r, cb), {});
  }
  restartServer(req: pb.RestartServerRequest): Promise<pb.RestartServerResponse> {
    return callUnary<pb.RestartServerRequest, pb.RestartServerResponse>((r, cb) => this.client.restartServer(r, cb), req);
  }
  registerCaller(req: pb.RegisterCallerRequest): Promise<pb.RegisterCallerResponse> {
    return callUnary<pb.RegisterCallerRequest, pb.RegisterCallerResponse>((r, cb) => this.client.registerCaller(r, cb), req);
  }
}

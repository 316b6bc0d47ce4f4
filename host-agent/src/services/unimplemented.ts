import * as grpc from '@grpc/grpc-js';

/** A contract RPC this agent does not do yet: which one, and which capability will bring it. */
export interface PendingRpc {
  /** Full gRPC method path, e.g. "/devplein.agent.v1.ProxyService/UpsertRoute". */
  path: string;
  /** The capability, in words, e.g. "proxy routes (Caddy)". */
  capability: string;
}

/** The UNIMPLEMENTED message: names the RPC and the capability, and that it comes later. */
export function unimplementedMessage({ path, capability }: PendingRpc): string {
  return `${path.replace(/^\//, '')} is not implemented in this agent yet: the ${capability} capability comes with a later issue`;
}

function unimplementedError(rpc: PendingRpc): Partial<grpc.StatusObject> {
  return { code: grpc.status.UNIMPLEMENTED, details: unimplementedMessage(rpc), metadata: new grpc.Metadata() };
}

/** Unary handler that answers UNIMPLEMENTED (until the capability's issue implements it). */
export function unimplementedUnary<Request, Response>(rpc: PendingRpc): grpc.handleUnaryCall<Request, Response> {
  return (_call, callback) => callback(unimplementedError(rpc));
}

/** Server-streaming handler that ends the stream at once with UNIMPLEMENTED. */
export function unimplementedServerStream<Request, Response>(rpc: PendingRpc): grpc.handleServerStreamingCall<Request, Response> {
  return (call) => {
    call.emit('error', unimplementedError(rpc));
  };
}

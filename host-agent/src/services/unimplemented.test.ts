import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ProxyServiceService } from '@devplein/proto/proxy';
import { unimplementedMessage, unimplementedUnary } from './unimplemented.ts';

describe('unimplemented RPCs', () => {
  const rpc = { path: ProxyServiceService.upsertRoute.path, capability: 'proxy routes (Caddy admin API)' };

  it('name the RPC and the capability, and say it comes later', () => {
    expect(unimplementedMessage(rpc)).toBe(
      'devplein.agent.v1.ProxyService/UpsertRoute is not implemented in this agent yet: the proxy routes (Caddy admin API) capability comes with a later issue',
    );
  });

  it('answer with gRPC status UNIMPLEMENTED', () => {
    let answered: unknown;
    const handler = unimplementedUnary(rpc);
    handler({} as Parameters<typeof handler>[0], (error) => {
      answered = error;
    });
    expect(answered).toMatchObject({ code: grpc.status.UNIMPLEMENTED, details: unimplementedMessage(rpc) });
  });
});

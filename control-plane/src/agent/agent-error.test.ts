import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AgentError, toAgentError } from './agent-error.ts';

function serviceError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details, metadata: new grpc.Metadata() });
}

describe('toAgentError', () => {
  it('marks "did not answer" codes as unreachable', () => {
    for (const code of [grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]) {
      const error = toAgentError(serviceError(code, 'no connection'), 'GetInfo');
      expect(error).toBeInstanceOf(AgentError);
      expect(error.unreachable).toBe(true);
    }
  });

  it('keeps refusals as reachable, with the status name and the agent message', () => {
    const error = toAgentError(serviceError(grpc.status.FAILED_PRECONDITION, 'contract version 2.0.0 is not supported'), 'GetInfo');
    expect(error).toMatchObject({
      code: 'FAILED_PRECONDITION',
      grpcCode: grpc.status.FAILED_PRECONDITION,
      details: 'contract version 2.0.0 is not supported',
      unreachable: false,
      message: 'agent GetInfo: FAILED_PRECONDITION: contract version 2.0.0 is not supported',
    });
    expect(toAgentError(serviceError(grpc.status.UNIMPLEMENTED, 'later')).code).toBe('UNIMPLEMENTED');
    expect(toAgentError(serviceError(grpc.status.PERMISSION_DENIED, 'cn')).unreachable).toBe(false);
  });

  it('maps errors without a gRPC status to UNKNOWN and passes AgentErrors through', () => {
    const plain = toAgentError(new Error('boom'), 'GetInfo');
    expect(plain).toMatchObject({ code: 'UNKNOWN', details: 'boom', unreachable: false });
    expect(toAgentError('text').code).toBe('UNKNOWN');
    expect(toAgentError(plain)).toBe(plain);
  });

  it('treats an unknown numeric code as UNKNOWN', () => {
    expect(toAgentError(serviceError(99 as grpc.status, 'odd')).code).toBe('UNKNOWN');
  });
});

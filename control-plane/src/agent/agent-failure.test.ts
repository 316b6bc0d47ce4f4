import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AgentError } from './agent-error.ts';
import { HttpError } from '../errors.ts';
import { AGENT_UNREACHABLE_MESSAGE, agentFailure } from './agent-failure.ts';

const statusOf = (code: grpc.status): number | undefined => {
  const mapped = agentFailure(new AgentError(code, 'detail'));
  return mapped instanceof HttpError ? mapped.status : undefined;
};

describe('agentFailure', () => {
  it('maps the agent’s answers to the HTTP answers the API promises', () => {
    expect(statusOf(grpc.status.UNAVAILABLE)).toBe(503);
    expect(statusOf(grpc.status.DEADLINE_EXCEEDED)).toBe(503);
    expect((agentFailure(new AgentError(grpc.status.UNAVAILABLE, 'x')) as HttpError).message).toBe(AGENT_UNREACHABLE_MESSAGE);
    expect(statusOf(grpc.status.NOT_FOUND)).toBe(404);
    expect(statusOf(grpc.status.FAILED_PRECONDITION)).toBe(409);
    expect(statusOf(grpc.status.INVALID_ARGUMENT)).toBe(422);
    expect(statusOf(grpc.status.INTERNAL)).toBeUndefined();
    const other = new Error('not an agent error');
    expect(agentFailure(other)).toBe(other);
  });
});

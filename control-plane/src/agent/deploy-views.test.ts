import { describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { DeployOutcome, DeployPhase } from '@devplein/proto/deploy';
import { deployEventView } from './deploy-views.ts';
import { deployRequest } from './clients/deploy.ts';
import { AgentError } from './agent-error.ts';
import { agentFailureOf, OLD_AGENT_MESSAGE } from '../services/deploy-queue.ts';

const finished = (outcome: DeployOutcome, hash = 'f'.repeat(40)) => ({
  event: {
    $case: 'finished' as const,
    value: { outcome, message: 'klaar', commit: { hash, subject: 'Versie', author: 'Sam', authorEmail: '', time: new Date('2026-11-27T10:00:00Z') }, files: 1, bytes: 2, durationMs: 3, restarted: false },
  },
});

describe('deployEventView', () => {
  it('maps progress lines with their phase and percent (-1: none)', () => {
    expect(deployEventView({ event: { $case: 'progress', value: { phase: DeployPhase.DEPLOY_PHASE_AFTER_UPDATE, line: 'composer', percent: -1 } } })).toEqual({
      kind: 'progress',
      phase: 'after-update',
      text: 'composer',
      percent: null,
    });
    expect(deployEventView({ event: { $case: 'progress', value: { phase: DeployPhase.DEPLOY_PHASE_FETCH, line: 'Ophalen: 45%', percent: 45 } } })).toMatchObject({ phase: 'fetch', percent: 45 });
    expect(deployEventView({ event: undefined })).toBeNull();
  });

  it('maps outcomes to failures; an unknown outcome is a failure, never a success', () => {
    expect(deployEventView(finished(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED))).toMatchObject({ kind: 'finished', failure: null, commit: { hash: 'f'.repeat(40), subject: 'Versie' } });
    expect(deployEventView(finished(DeployOutcome.DEPLOY_OUTCOME_TOO_LARGE))).toMatchObject({ failure: 'too-large' });
    expect(deployEventView(finished(DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED))).toMatchObject({ failure: 'auth-failed' });
    expect(deployEventView(finished(99 as DeployOutcome))).toMatchObject({ failure: 'copy-failed' });
    expect(deployEventView(finished(DeployOutcome.DEPLOY_OUTCOME_DEPLOYED, 'not-a-hash'))).toMatchObject({ commit: null });
  });
});

describe('deployRequest', () => {
  const input = {
    projectId: 7,
    deployId: 12,
    address: 'https://git.school.nl/klas/site.git',
    branch: null,
    commit: null,
    target: { webRoot: '/www', afterUpdate: null, keepPaths: ['.env'], buildCommand: null, buildOutput: null },
    allowedHosts: ['git.school.nl'],
    allowHttp: false,
  };

  it('sends empty strings for "none" and the credentials as the contract has them', () => {
    expect(deployRequest({ ...input, credentials: { kind: 'none' } })).toMatchObject({ branch: '', commit: '', deployId: '12', credentials: undefined, target: { afterUpdate: '', keepPaths: ['.env'] } });
    expect(deployRequest({ ...input, credentials: { kind: 'deploy-key' } }).credentials).toEqual({ $case: 'useDeployKey', value: true });
    expect(deployRequest({ ...input, credentials: { kind: 'token', token: 't0k' } }).credentials).toEqual({ $case: 'httpsToken', value: 't0k' });
  });
});

describe('agentFailureOf', () => {
  it('an agent without DeployService, one that does not answer, a missing or stopped container', () => {
    expect(agentFailureOf(new AgentError(grpc.status.UNIMPLEMENTED, 'unknown service'))).toEqual({ failure: 'agent-unavailable', message: OLD_AGENT_MESSAGE });
    expect(agentFailureOf(new AgentError(grpc.status.UNAVAILABLE, 'down')).failure).toBe('agent-unavailable');
    expect(agentFailureOf(new AgentError(grpc.status.NOT_FOUND, 'no container')).failure).toBe('no-container');
    expect(agentFailureOf(new AgentError(grpc.status.FAILED_PRECONDITION, 'exited')).failure).toBe('no-container');
    expect(agentFailureOf(new Error('x')).failure).toBe('agent-unavailable');
  });
});

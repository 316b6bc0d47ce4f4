import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  type AuthorizedKey,
  type EndSshSessionsResponse,
  type SshAccess,
  SshAccessServiceService,
  type SshAccessServiceServer,
} from '@devplein/proto/ssh_access';
import type { AgentConfig } from '../config.ts';
import { type DockerDriver, LABELS } from '../drivers/docker/docker-driver.ts';
import { SSH_USER } from '../drivers/docker/container-files.ts';
import type { AuthorizedKeyLine } from '../drivers/ssh/authorized-keys.ts';
import type { ProjectTurns } from '../projects/project-turns.ts';
import type { ContainerSshKeys } from '../drivers/ssh/container-keys.ts';
import { type ContainerSshSessions, keyFingerprint } from '../drivers/ssh/ssh-sessions.ts';
import { dockerFailure } from './docker-status.ts';
import { type FailureStatus, grpcReply } from './grpc-reply.ts';

/** Key types OpenSSH accepts in authorized_keys (certificates and DSA left out on purpose). */
const keyTypes = new Set([
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/** The caller's mistake or the project's state, with the gRPC code it maps to. */
class SshAccessError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/** Our own refusals first, then Docker failures as the container service maps them (no student user: FAILED_PRECONDITION). */
function sshAccessFailure(error: unknown): FailureStatus | undefined {
  if (error instanceof SshAccessError) return { code: error.code, details: error.message };
  return dockerFailure(error);
}

/**
 * A key as OpenSSH would take it: one line "<type> <base64> [comment]" whose base64 decodes to
 * a blob that starts with the same type name (catches truncated or pasted-wrong keys here,
 * instead of sshd silently ignoring the line). The comment is dropped: the file gets our own.
 */
export function checkAuthorizedKey(key: AuthorizedKey, index: number): AuthorizedKeyLine {
  const fail = (why: string): never => {
    throw new SshAccessError(grpc.status.INVALID_ARGUMENT, `keys[${index}]: ${why}`);
  };
  const userId = Number(key.userId);
  if (!Number.isSafeInteger(userId) || userId <= 0) fail('user_id must be a positive number');
  if (/[\r\n\0]/.test(key.publicKey)) fail('a public key must be a single line');
  const [type = '', body = ''] = key.publicKey.trim().split(/\s+/);
  if (!keyTypes.has(type)) fail(`unsupported key type ${JSON.stringify(type.slice(0, 40))}`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) fail('the key data is not base64');
  const blob = Buffer.from(body, 'base64');
  const nameLength = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  if (nameLength !== type.length || blob.subarray(4, 4 + nameLength).toString('latin1') !== type) fail(`the key data is not a ${type} key`);
  return { publicKey: `${type} ${body}`, userId };
}

function checkProjectId(value: number): number {
  const projectId = Number(value);
  if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new SshAccessError(grpc.status.INVALID_ARGUMENT, 'project_id must be a positive number');
  return projectId;
}

/** Members per EndSshSessions: a project has a handful; this bounds the request. */
const MAX_USERS_PER_CALL = 1_000;

function checkUserIds(values: readonly number[]): Set<number> {
  if (values.length > MAX_USERS_PER_CALL) throw new SshAccessError(grpc.status.INVALID_ARGUMENT, `at most ${MAX_USERS_PER_CALL} user_ids`);
  const ids = values.map(Number);
  if (ids.some((id) => !Number.isSafeInteger(id) || id <= 0)) throw new SshAccessError(grpc.status.INVALID_ARGUMENT, 'user_ids must be positive numbers');
  return new Set(ids);
}

export interface SshAccessServiceOptions {
  /** The project containers of this agent. */
  containers: Pick<DockerDriver, 'find'>;
  /** Writes, reads and counts the keys inside a container (shared with the container service). */
  keys: Pick<ContainerSshKeys, 'write' | 'count' | 'read'>;
  /** The open SSH sessions inside a container, and ending them. */
  sessions: Pick<ContainerSshSessions, 'list' | 'end'>;
  config: Pick<AgentConfig, 'ssh'>;
  logger: Logger;
  /** The agent's one owner of each project's turn (shared with the container and deploy services). */
  turns: ProjectTurns;
}

/**
 * SshAccessService: the members' keys into a project's container (written into it through the
 * Docker API, running or stopped, so a change needs no restart and no root on the host) and
 * where to log in. The container is found by its project label; its SSH flag and port are
 * labels the container service set at create.
 */
export class SshAccessServiceImpl {
  constructor(private readonly options: SshAccessServiceOptions) {}

  /**
   * The project's container with SSH, or the reason there is none. Found as the container
   * service finds it (on this agent's network only): another agent on the same engine numbers
   * its projects alike.
   */
  private async sshContainer(projectId: number): Promise<{ id: string; port: number; state: string }> {
    const container = await this.options.containers.find({ projectId });
    if (!container) throw new SshAccessError(grpc.status.NOT_FOUND, `project ${projectId} has no container`);
    if (container.labels[LABELS.ssh] !== 'true') {
      throw new SshAccessError(grpc.status.FAILED_PRECONDITION, `the container of project ${projectId} has no SSH (its image has no ssh flag)`);
    }
    const port = Number(container.labels[LABELS.sshPort]);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new SshAccessError(grpc.status.FAILED_PRECONDITION, `the container of project ${projectId} has no SSH port`);
    }
    return { id: container.id, port, state: container.state };
  }

  private access(port: number, keyCount: number): SshAccess {
    return { host: this.options.config.ssh.host, port, user: SSH_USER, keyCount };
  }

  /** Replaces the keys (all members' keys; empty locks SSH) and says where to log in. */
  async setAuthorizedKeys(projectIdInput: number, keys: AuthorizedKey[]): Promise<SshAccess> {
    const projectId = checkProjectId(projectIdInput);
    const lines = keys.map(checkAuthorizedKey);
    // In the project's turn (projects/project-turns.ts): after a create that is still making the
    // container, never between two writes; beside a deploy, which never touches ~/.ssh.
    return this.options.turns.change(projectId, 'keys', async () => {
      const { id, port } = await this.sshContainer(projectId);
      await this.options.keys.write(id, lines);
      return this.access(port, lines.length);
    });
  }

  async getSshAccess(projectIdInput: number): Promise<SshAccess> {
    const projectId = checkProjectId(projectIdInput);
    const { id, port } = await this.sshContainer(projectId);
    return this.access(port, await this.options.keys.count(id));
  }

  /**
   * Ends the sessions of these members (see EndSshSessions in ssh_access.proto): a session
   * whose key the SSH server's log names stays only when that key is still in authorized_keys
   * and belongs to someone else; every other session ends.
   */
  async endSshSessions(projectIdInput: number, userIdsInput: readonly number[], log: Logger): Promise<EndSshSessionsResponse> {
    const projectId = checkProjectId(projectIdInput);
    const userIds = checkUserIds(userIdsInput);
    const { id, state } = await this.sshContainer(projectId);
    if (state === 'paused') {
      throw new SshAccessError(grpc.status.FAILED_PRECONDITION, `the container of project ${projectId} is paused: its SSH sessions cannot be ended until it is unpaused`);
    }
    if (state !== 'running') return { containerRunning: false, endedSessions: 0, endedUnattributedSessions: 0, keptSessions: 0 };
    const [sessions, present] = await Promise.all([this.options.sessions.list(id), this.options.keys.read(id)]);
    const ownerOf = new Map(present.map((line) => [keyFingerprint(line.publicKey), line.userId]));
    const ended = sessions.filter((session) => session.fingerprint !== undefined && !this.keeps(ownerOf.get(session.fingerprint), userIds));
    const unattributed = sessions.filter((session) => session.fingerprint === undefined);
    await this.options.sessions.end(id, [...ended, ...unattributed]);
    const response = {
      containerRunning: true,
      endedSessions: ended.length,
      endedUnattributedSessions: unattributed.length,
      keptSessions: sessions.length - ended.length - unattributed.length,
    };
    log.info({ projectId, userIds: [...userIds], ...response }, 'ssh sessions ended');
    return response;
  }

  /** A session stays when its key is still authorized and belongs to a member not being removed. */
  private keeps(owner: number | undefined, leaving: Set<number>): boolean {
    return owner !== undefined && !leaving.has(owner);
  }

  addToServer(server: grpc.Server): void {
    const { logger } = this.options;
    const { reply } = grpcReply({ logger, knownFailures: sshAccessFailure });
    const handlers: SshAccessServiceServer = {
      setAuthorizedKeys: (call, callback) =>
        reply(call, callback, async () => ({ access: await this.setAuthorizedKeys(call.request.projectId, call.request.keys) }), 'SetAuthorizedKeys'),
      getSshAccess: (call, callback) => reply(call, callback, async () => ({ access: await this.getSshAccess(call.request.projectId) }), 'GetSshAccess'),
      endSshSessions: (call, callback) =>
        reply(call, callback, (log) => this.endSshSessions(call.request.projectId, call.request.userIds, log), 'EndSshSessions'),
    };
    server.addService(SshAccessServiceService, handlers);
  }
}

import {
  type AutoStop,
  AutoStopReason,
  type Container,
  ContainerAction,
  type ContainerEvent,
  type ContainerRef,
  type LogLine,
  LogStream,
  type PullImageResponse,
} from '@devplein/proto/container';
import type { Route } from '@devplein/proto/proxy';
import { CONTAINER_ACTIONS, type ContainerAction as HttpContainerAction } from '@devplein/contract/dockers';
import type { SshAccess } from '@devplein/proto/ssh_access';
import type { DockerAutoStop, DockerExit } from '@devplein/contract/dockers';

/**
 * Plain views of what the agent answers about containers, routes and SSH access. Routes,
 * commands and presenters only ever see these: no proto message leaves the agent module, so a
 * change in the generated code stays inside agent/.
 */

/** A lifecycle action as the HTTP API names it (`?action=`); the contract defines the list. */
export type ContainerActionName = HttpContainerAction;
export { CONTAINER_ACTIONS };

/** One container by its project (the student API) or by its name (the admin API). */
export type ContainerTarget = { projectId: number } | { name: string };

/** The agent stopped the container by itself (idle auto-stop); it is stopped, not removed. Same shape as the web contract. */
export type AutoStopView = DockerAutoStop;

/** One container as Docker lists it. */
export interface ContainerView {
  id: string;
  /** As Docker reports them, each with a leading slash. */
  names: string[];
  /** Name without the leading slash. */
  name: string;
  image: string;
  state: string;
  status: string;
  labels: Record<string, string>;
  createdAt: string | null;
  /** 0 for unmanaged containers. */
  projectId: number;
  domain: string;
  /** Whether the agent made it (label `devplein.managed=true`). */
  managed: boolean;
  /** Set while the container is stopped by the agent's idle auto-stop. */
  autoStop: AutoStopView | null;
  /** How an exited or dead managed container ended (contract 1.6.0); null otherwise, and from an older agent. */
  exit: DockerExit | null;
}

export interface ContainerEventView {
  containerId: string;
  containerName: string;
  projectId: number;
  action: string;
  /** Empty after destroy. */
  state: string;
  status: string;
  time: string | null;
  attributes: Record<string, string>;
  /** Set on the events of a stop the agent made by itself. */
  autoStop: AutoStopView | null;
}

export interface LogLineView {
  stream: 'stdout' | 'stderr';
  text: string;
  time: string | null;
}

export interface PullProgressView {
  status: string;
  layerId: string;
  current: number;
  total: number;
  progress: string;
}

export interface SshAccessView {
  host: string;
  port: number;
  user: string;
  keyCount: number;
}

/** EndSshSessions' answer: sessions ended (named by the log, or not) and left open. */
export interface EndedSshSessionsView {
  /** False: the container does not run, so no session was open. */
  containerRunning: boolean;
  ended: number;
  endedUnattributed: number;
  kept: number;
}

export interface RouteView {
  domain: string;
  upstream: string;
  projectId: number;
}

/** The input of CreateContainer; limits left 0 mean the agent's defaults. */
export interface CreateContainerInput {
  projectId: number;
  name: string;
  domain: string;
  image: string;
  ownerUserId: number;
  memberUserIds: number[];
  ssh: boolean;
  wordpress: boolean;
  limits?: { memoryBytes?: number; nanoCpus?: number; pids?: number };
  /**
   * Linux capabilities the container gets back after dropping all (the image option's); always
   * sent, [] meaning none. Contract 1.3.0: an older agent ignores it and keeps its fixed set.
   */
  capabilities: readonly string[];
  /**
   * SSH images: the members' keys, written before the container's first start (contract 1.4.0;
   * an older agent ignores them and writes none). Not sent: the empty file.
   */
  authorizedKeys?: ReadonlyArray<{ publicKey: string; userId: number }>;
}

export const MANAGED_LABEL = 'devplein.managed';
export const SSH_PORT_LABEL = 'devplein.ssh-port';
/** 'true' on containers made from an image with SSH (the agent writes keys into those). */
export const SSH_LABEL = 'devplein.ssh';
export const OWNER_LABEL = 'devplein.owner-id';

const iso = (date: Date | undefined): string | null => (date ? date.toISOString() : null);

/** The view of an AutoStop; null without one, or with a reason this control plane does not know. */
export function autoStopView(autoStop: AutoStop | undefined): AutoStopView | null {
  if (!autoStop || autoStop.reason !== AutoStopReason.AUTO_STOP_REASON_IDLE || !autoStop.stoppedAt) return null;
  return {
    reason: 'idle',
    stoppedAt: autoStop.stoppedAt.toISOString(),
    lastActivityAt: iso(autoStop.lastActivityAt),
    idleAfterSeconds: Number(autoStop.idleAfterSeconds),
  };
}

export function containerView(container: Container): ContainerView {
  const names = [...container.names];
  const first = names[0] ?? '';
  return {
    id: container.id,
    names,
    name: first.startsWith('/') ? first.slice(1) : first,
    image: container.image,
    state: container.state,
    status: container.status,
    labels: { ...container.labels },
    createdAt: iso(container.createdAt),
    projectId: Number(container.projectId),
    domain: container.domain,
    managed: container.labels[MANAGED_LABEL] === 'true',
    autoStop: autoStopView(container.autoStop),
    // An older agent never sets the fields: nothing is said then rather than "exit code 0".
    exit: (container.state === 'exited' || container.state === 'dead') && (container.oomKilled || container.exitCode !== 0) ? { oomKilled: container.oomKilled, exitCode: container.exitCode } : null,
  };
}

export function containerEventView(event: ContainerEvent): ContainerEventView {
  return {
    containerId: event.containerId,
    containerName: event.containerName.replace(/^\//, ''),
    projectId: Number(event.projectId),
    action: event.action,
    state: event.state,
    status: event.status,
    time: iso(event.time),
    attributes: { ...event.attributes },
    autoStop: autoStopView(event.autoStop),
  };
}

export function logLineView(line: LogLine): LogLineView {
  return { stream: line.stream === LogStream.LOG_STREAM_STDERR ? 'stderr' : 'stdout', text: line.text, time: iso(line.time) };
}

export function pullProgressView(message: PullImageResponse): PullProgressView {
  return {
    status: message.status,
    layerId: message.layerId,
    current: Number(message.currentBytes),
    total: Number(message.totalBytes),
    progress: message.progress,
  };
}

export function sshAccessView(access: SshAccess | undefined): SshAccessView {
  return { host: access?.host ?? '', port: access?.port ?? 0, user: access?.user || 'student', keyCount: access?.keyCount ?? 0 };
}

export function routeView(route: Route | undefined): RouteView {
  return { domain: route?.domain ?? '', upstream: route?.upstream ?? '', projectId: Number(route?.projectId ?? 0) };
}

export function containerRef(target: ContainerTarget): ContainerRef {
  return 'projectId' in target ? { ref: { $case: 'projectId', value: target.projectId } } : { ref: { $case: 'name', value: target.name } };
}

const actionCodes: Record<ContainerActionName, ContainerAction> = {
  start: ContainerAction.CONTAINER_ACTION_START,
  stop: ContainerAction.CONTAINER_ACTION_STOP,
  pause: ContainerAction.CONTAINER_ACTION_PAUSE,
  unpause: ContainerAction.CONTAINER_ACTION_UNPAUSE,
  restart: ContainerAction.CONTAINER_ACTION_RESTART,
};

export const containerActionCode = (action: ContainerActionName): ContainerAction => actionCodes[action];

/** Reverse of containerActionCode (for the fake agent and logs); undefined for UNSPECIFIED/unknown. */
export function containerActionName(code: ContainerAction): ContainerActionName | undefined {
  return CONTAINER_ACTIONS.find((name) => actionCodes[name] === code);
}

import { useEffect, useState } from 'react';
import type { KeyedMutator } from 'swr';
import { addressOf, pathOf } from '@devplein/contract/http/endpoint';
import { changeUserDocker, containerLogs, createUserDocker, followContainerLogs, listUserDockers, pullProjectImage, type LogLineJson } from '@devplein/contract/http/user-dockers';
import { ApiError, NetworkError, statusMessage } from '../client.ts';
import { resetWordpressPassword as resetWordpressPasswordEndpoint } from '@devplein/contract/http/wordpress';
import { deleteProjectRequest } from '@devplein/contract/http/project-requests';
import { call, keyOf, useEndpoint } from '../endpoints.ts';

import {
  STATE_AWAITING,
  STATE_NOT_CREATED,
  STATE_REJECTED,
  STATE_UNREACHABLE,
  type ContainerAction,
  type DockerAutoStop,
  type UserDocker,
} from '@devplein/contract/dockers';

export { STATE_AWAITING, STATE_NOT_CREATED, STATE_REJECTED, STATE_UNREACHABLE, type DockerAutoStop, type UserDocker };

/** What a card can ask the server to do with its container (the contract's list). */
export type { ContainerAction };


/** The container name: the first of Names without Docker's leading slash. */
export function containerName(docker: Pick<UserDocker, 'Names' | 'project'>): string {
  const first = docker.Names[0];
  return first === undefined ? docker.project.name : first.replace(/^\//, '');
}

export const USER_DOCKERS_KEY = keyOf(listUserDockers, {})!;

/** How often the dockers page asks again while no live update can come (dockerserver unreachable, realtime down). */
export const DOCKERS_RETRY_MS = 5_000;

/**
 * When to ask for the list again: soon while live updates cannot arrive — the dockerserver is
 * unreachable (no events) or the realtime connection is down (events are lost) — else never.
 */
export function userDockersRefreshMs(latest: UserDocker[] | undefined, realtimeDown: boolean): number {
  if (realtimeDown || latest?.some((docker) => docker.State === STATE_UNREACHABLE)) return DOCKERS_RETRY_MS;
  return 0;
}

export interface UserDockersQuery {
  dockers: UserDocker[] | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<UserDocker[]>;
}

/**
 * The signed-in user's projects with their containers, newest first. `realtimeDown`: the page's
 * live updates are not connected, so the list is asked for again until they are.
 */
export function useUserDockers(options: { realtimeDown?: boolean } = {}): UserDockersQuery {
  const [shown, setShown] = useState<UserDocker[] | undefined>(undefined);
  // A number, not a function: swr restarts its timer whenever the number changes, while a
  // function is only asked again after a refresh it already scheduled (none once it said 0).
  const refreshInterval = userDockersRefreshMs(shown, options.realtimeDown ?? false);
  const { data, error, isLoading, mutate } = useEndpoint(listUserDockers, {}, { refreshInterval });
  useEffect(() => setShown(data), [data]);
  return { dockers: data, error, isLoading, mutate };
}

/** Makes the project's container (idempotent); the list's first item is the new state. */
export function createContainer(projectId: number): Promise<UserDocker[]> {
  return call(createUserDocker, { body: { id: projectId } });
}

/** Runs an action on the project's container; the list's first item carries the new State and Status. */
export function runContainerAction(projectId: number, action: ContainerAction): Promise<UserDocker[]> {
  return call(changeUserDocker, { params: { projectId }, query: { action } });
}

/** Removes the container first, then the project (503 keeps both). */
export async function deleteUserProject(projectId: number): Promise<void> {
  await call(deleteProjectRequest, { params: { id: projectId } });
}

/** One line of a container's log (the logs' JSON form, or one follow event); `time` '' when Docker gave none. */
export type LogLine = Omit<LogLineJson, 'time'> & { time: string };

/** The server's limits for `?tail=`. */
export const LOG_TAIL_DEFAULT = 500;
export const LOG_TAIL_MAX = 5000;

/** The last `tail` lines, stdout and stderr interleaved. */
export async function fetchContainerLogs(name: string, tail: number, signal?: AbortSignal): Promise<LogLine[]> {
  const body = await call(containerLogs, { params: { name }, query: { format: 'json', tail } }, { signal });
  return (body?.lines ?? []).map((line) => ({ ...line, time: line.time ?? '' }));
}

/** The whole log as a `{name}.log` attachment. */
export function containerLogsDownloadUrl(name: string): string {
  return addressOf(containerLogs, { params: { name }, query: { download: '1' } });
}

/** The server-sent-events stream of new lines; ends when the container stops. */
export function containerLogsFollowUrl(name: string): string {
  return pathOf(followContainerLogs, { name });
}

/** Parses one follow event's data; null for anything that is not a log line. */
export function parseLogEvent(data: string): LogLine | null {
  try {
    const value = JSON.parse(data) as Partial<LogLine>;
    if (typeof value.text !== 'string') return null;
    return { stream: value.stream === 'stderr' ? 'stderr' : 'stdout', text: value.text, time: typeof value.time === 'string' ? value.time : '' };
  } catch {
    return null;
  }
}

/** A fresh password for the WordPress admin of a project (its id or name), shown once. */
export function resetWordpressPassword(project: string | number): Promise<{ username: string; password: string }> {
  return call(resetWordpressPasswordEndpoint, { params: { project: String(project) } });
}

/** One line of the pull stream (POST /api/user/dockers_images). */
export interface PullEvent {
  status?: string;
  layerId?: string;
  current?: number;
  total?: number;
  progress?: string;
  done?: boolean;
  error?: string;
}

/** What a card shows while the image is pulled: a Dutch status and a 0..1 fraction (null: unknown). */
export interface PullProgress {
  status: string;
  fraction: number | null;
}

/** Docker's per-layer status lines, as the step they are in; anything else is not a layer's line. */
const LAYER_STEPS: readonly [RegExp, LayerStep][] = [
  [/^pulling fs layer$/i, 'waiting'],
  [/^waiting$/i, 'waiting'],
  [/^downloading$/i, 'downloading'],
  [/^(verifying checksum|download complete)$/i, 'downloaded'],
  [/^extracting$/i, 'extracting'],
  [/^pull complete$/i, 'complete'],
  [/^already exists$/i, 'complete'],
];

type LayerStep = 'waiting' | 'downloading' | 'downloaded' | 'extracting' | 'complete';

interface LayerProgress {
  number: number;
  size: number;
  downloaded: number;
  extracted: number;
}

/** "Status: Downloaded newer image for …", "Status: Image is up to date for …", "Digest: …". */
const PULL_FINISHED = /^(status: (downloaded newer image|image is up to date)|digest:)/i;

function percent(current: number | undefined, total: number | undefined): string {
  if (typeof current !== 'number' || typeof total !== 'number' || total <= 0) return '';
  return ` ${Math.min(100, Math.floor((current / total) * 100))} %`;
}

/**
 * Folds Docker's pull events into one Dutch progress ("Laag 3 van 7 downloaden… 45 %"); Docker's
 * own English line is never shown. The fraction counts each layer's bytes, half for downloading
 * and half for unpacking, so the bar never runs backwards when unpacking starts. Returns a reducer
 * so the caller keeps no layer bookkeeping itself.
 */
export function pullProgressTracker(): (event: PullEvent) => PullProgress {
  const layers = new Map<string, LayerProgress>();
  let status = 'Image ophalen…';
  return (event) => {
    const line = (event.status ?? '').trim();
    const step = LAYER_STEPS.find(([pattern]) => pattern.test(line))?.[1];
    if (event.done === true || PULL_FINISHED.test(line)) {
      status = 'Image opgehaald';
      for (const layer of layers.values()) layer.downloaded = layer.extracted = layer.size;
    } else if (step !== undefined && event.layerId) {
      let layer = layers.get(event.layerId);
      if (layer === undefined) {
        layer = { number: layers.size + 1, size: 0, downloaded: 0, extracted: 0 };
        layers.set(event.layerId, layer);
      }
      const total = typeof event.total === 'number' && event.total > 0 ? event.total : undefined;
      const current = Math.max(0, event.current ?? 0);
      if (step === 'downloading' && total !== undefined) {
        layer.size = Math.max(layer.size, total);
        layer.downloaded = Math.min(current, total);
      } else if (step === 'downloaded') {
        layer.downloaded = layer.size;
      } else if (step === 'extracting' && total !== undefined) {
        layer.size = Math.max(layer.size, total);
        layer.downloaded = layer.size;
        layer.extracted = Math.min(current, total);
      } else if (step === 'complete') {
        layer.downloaded = layer.extracted = layer.size;
      }
      const which = `Laag ${layer.number} van ${layers.size}`;
      if (step === 'waiting') status = `${which} wacht…`;
      else if (step === 'downloading') status = `${which} downloaden…${percent(event.current, total)}`;
      else if (step === 'downloaded') status = `${which} gedownload`;
      else if (step === 'extracting') status = `${which} uitpakken…`;
      else status = `${which} klaar`;
    }
    let done = 0;
    let size = 0;
    for (const layer of layers.values()) {
      done += (layer.downloaded + layer.extracted) / 2;
      size += layer.size;
    }
    return { status, fraction: status === 'Image opgehaald' ? 1 : size > 0 ? done / size : null };
  };
}

/**
 * POST /api/user/dockers_images {image, project_id}: pulls the image and reads the NDJSON answer
 * line by line, calling `onEvent` for each. Resolves on `{done:true}` (or the end of the stream);
 * rejects with the server's Dutch message on an `{error}` line or an HTTP error.
 */
export async function pullImage(
  input: { image: string; project_id: number },
  onEvent: (event: PullEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const headers = new Headers({
    Accept: 'application/x-ndjson, application/json',
    'Content-Type': 'application/json',
    'X-Requested-With': 'XMLHttpRequest',
  });
  const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content;
  if (csrf) headers.set('X-CSRF-TOKEN', csrf);
  let response: Response;
  try {
    response = await fetch(pullProjectImage.path, {
      method: 'POST',
      headers,
      body: JSON.stringify(input),
      credentials: 'same-origin',
      signal,
    });
  } catch (error) {
    throw new NetworkError(signal?.aborted ?? false, { cause: error, request: `${pullProjectImage.method} ${pullProjectImage.path}` });
  }
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // not JSON: keep the text
    }
    const message =
      typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : statusMessage(response.status);
    throw new ApiError(response.status, message, body);
  }
  const handle = (line: string): boolean => {
    if (line.trim() === '') return false;
    let event: PullEvent;
    try {
      event = JSON.parse(line) as PullEvent;
    } catch {
      return false;
    }
    if (typeof event.error === 'string') throw new PullError(event.error);
    onEvent(event);
    return event.done === true;
  };
  if (response.body === null) {
    for (const line of (await response.text()).split('\n')) if (handle(line)) return;
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (handle(line)) {
        await reader.cancel();
        return;
      }
      newline = buffer.indexOf('\n');
    }
  }
  handle(buffer);
}

/** An `{error}` line of the pull stream: the message is Dutch and meant for the student. */
export class PullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PullError';
  }
}

/** The Dutch text a card shows for a failed call: the server's message where it gave one. */
export function failureMessage(failure: unknown, fallback = 'Dat lukte niet. Probeer het nog eens.'): string {
  if (failure instanceof PullError) return failure.message;
  if (failure instanceof ApiError) {
    if (failure.status === 422) return failure.fieldMessages() || failure.message;
    if (failure.status === 503 || failure.status === 409 || failure.status === 404) return failure.message;
    return failure.message || fallback;
  }
  if (failure instanceof NetworkError) return failure.message;
  return fallback;
}

/**
 * What can go wrong with a Docker operation, in the words of the agent contract. The container
 * service maps each kind to one gRPC status; the driver never leaks dockerode's error shapes.
 */
export type DockerErrorKind = 'not-found' | 'invalid-argument' | 'failed-precondition' | 'unavailable' | 'permission-denied';

/** A Docker failure with the contract's meaning attached. */
export class DockerError extends Error {
  override name = 'DockerError';
  constructor(
    readonly kind: DockerErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The SSH port chosen for a new container was taken by another program between the port check and
 * the container's start (the engine could not bind it); the half-made container is gone.
 */
export class SshPortTakenError extends DockerError {
  override name = 'SshPortTakenError';
  constructor(
    readonly port: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('unavailable', message, options);
  }
}

/** The engine's words when it cannot bind a published port (docker-proxy or iptables). */
export function isPortBindFailure(message: string): boolean {
  return /port is already allocated|address already in use/i.test(message);
}

/** Socket-level failures: the engine is not there (stopped, socket missing, no permission). */
const unreachableCodes = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** True when `error` says the Docker engine did not answer at all. */
export function isEngineUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && unreachableCodes.has(code);
}

/** The engine's own message from a dockerode error (`json.message`), else the error's message. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: unknown } | null)?.json;
  if (json && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string') {
    return (json as { message: string }).message;
  }
  if (typeof json === 'string' && json.trim()) return json.trim();
  return error instanceof Error ? error.message : String(error);
}

/** HTTP status of a dockerode error; undefined for socket errors and anything else. */
export function engineStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Translates a dockerode failure: 404 → not-found, 400 → invalid-argument, 409 (conflict, e.g.
 * pausing a stopped container) → failed-precondition, socket errors → unavailable. Anything
 * else (500 and friends) is returned unchanged: an internal error the service logs.
 */
export function translateDockerError(error: unknown, what: string): unknown {
  if (error instanceof DockerError) return error;
  if (isEngineUnreachable(error)) return new DockerError('unavailable', 'the Docker engine does not answer', { cause: error });
  const status = engineStatus(error);
  const message = `${what}: ${engineMessage(error)}`;
  if (status === 404) return new DockerError('not-found', message, { cause: error });
  if (status === 400) return new DockerError('invalid-argument', message, { cause: error });
  if (status === 409) return new DockerError('failed-precondition', message, { cause: error });
  return error;
}

import { DockerError } from './docker-errors.ts';

/**
 * The checks every name, domain, image reference and id passes before it reaches Docker or the
 * proxy. Failures are DockerError('invalid-argument') (gRPC INVALID_ARGUMENT).
 */

const invalid = (message: string): never => {
  throw new DockerError('invalid-argument', message);
};

/** A project container's name: the project name, a-z and hyphens, 2..63, no hyphen at either end. */
const projectNamePattern = /^[a-z][a-z-]{0,61}[a-z]$/;

/** Any Docker container name (the admin API addresses unmanaged containers too). */
const dockerNamePattern = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;

const hostLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Docker's reference grammar ([registry[:port]/]path[:tag][@digest]), as the control plane
 * checks it too (control-plane/src/routes/user-dockers/schema.ts).
 */
const imageReferencePattern =
  /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** The name of a new project container (= project name). */
export function parseProjectContainerName(input: string): string {
  if (!projectNamePattern.test(input)) {
    invalid(`invalid container name ${JSON.stringify(input.slice(0, 80))}: expected the project name, 2-63 letters a-z and hyphens`);
  }
  return input;
}

/** A container name as an existing container may have it (without the leading slash). */
export function parseContainerName(input: string): string {
  const name = input.replace(/^\//, '');
  if (!dockerNamePattern.test(name)) invalid(`invalid container name ${JSON.stringify(input.slice(0, 80))}`);
  return name;
}

/** A host name for the proxy route: lower-cased, dot-separated labels of a-z, 0-9 and hyphens. */
export function parseDomain(input: string): string {
  const domain = input.trim().toLowerCase();
  if (domain.length === 0 || domain.length > 253 || !domain.split('.').every((label) => hostLabel.test(label))) {
    invalid(`invalid domain ${JSON.stringify(input.slice(0, 80))}: expected a host name such as blog.dev.school.nl`);
  }
  return domain;
}

/** An image reference Docker accepts, e.g. `devplein/php:8.3` or `127.0.0.1:5000/web:1`. */
export function parseImageReference(input: string): string {
  const image = input.trim();
  if (image.length === 0 || image.length > 255 || !imageReferencePattern.test(image)) {
    invalid(`invalid image reference ${JSON.stringify(input.slice(0, 80))}: expected [registry/]name[:tag], e.g. registry.school.nl/php:8.3`);
  }
  return image;
}

/** A positive project or user id (proto int64 arrives as a JS number). */
export function parseId(value: number, field: string): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) invalid(`${field} must be a positive number`);
  return id;
}

/**
 * Whether a reference names a registry host (its first component has a dot or a port, or is
 * localhost); without one Docker would ask Docker Hub.
 */
export function hasRegistryHost(image: string): boolean {
  const slash = image.indexOf('/');
  if (slash < 0) return false;
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost';
}

/** The registry a reference is pulled from, for messages ("docker.io" when none is named). */
export function registryOf(image: string): string {
  return hasRegistryHost(image) ? image.slice(0, image.indexOf('/')) : 'docker.io';
}

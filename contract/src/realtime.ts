/**
 * The realtime names both ends use (DESIGN: channel `private-container.{name}`, event
 * DockerEventSent): the control plane sends on them and authorizes them, the web app subscribes.
 */

/** The event that carries a container's state (`{ message: state }`). */
export const DOCKER_EVENT = 'DockerEventSent';

const CONTAINER_CHANNEL_PREFIX = 'private-container.';

/** A container's private channel: `private-container.{name}`. */
export function containerChannelName(containerName: string): string {
  return `${CONTAINER_CHANNEL_PREFIX}${containerName}`;
}

/** A container channel's name as authorization accepts it (a container name: lower-case letters and dashes). */
export const CONTAINER_CHANNEL = /^private-container\.([a-z][a-z-]{1,62})$/;

/** The container name of a container channel, or null when `channelName` is none (or a malformed one). */
export function parseContainerChannel(channelName: string): string | null {
  return CONTAINER_CHANNEL.exec(channelName)?.[1] ?? null;
}

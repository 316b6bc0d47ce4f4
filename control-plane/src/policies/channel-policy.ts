import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin, isVerified } from './roles.ts';

/** The private channels that exist; anything else is refused. */
export type ChannelSubject = { kind: 'container'; containerName: string };

const CONTAINER_CHANNEL = /^private-container\.([a-z][a-z-]{1,62})$/;

export function parseChannel(name: string): ChannelSubject | null {
  const match = CONTAINER_CHANNEL.exec(name);
  return match?.[1] ? { kind: 'container', containerName: match[1] } : null;
}

/** A container channel is for the members of the project that owns the container, and for admins. */
export function mayJoinContainerChannel(user: CurrentUser | null, projectMemberIds: number[] | null): boolean {
  if (!isVerified(user)) return false;
  if (isAdmin(user)) return projectMemberIds !== null;
  return projectMemberIds !== null && projectMemberIds.includes(user.id);
}

import { parseContainerChannel } from '@devplein/contract/realtime';
import type { CurrentUser } from '../queries/current-user.ts';
import { isAdmin, isVerified } from './roles.ts';

/** The private channels that exist; anything else is refused. */
export type ChannelSubject = { kind: 'container'; containerName: string };

export function parseChannel(name: string): ChannelSubject | null {
  const containerName = parseContainerChannel(name);
  return containerName ? { kind: 'container', containerName } : null;
}

/** A container channel is for the members of the project that owns the container, and for admins. */
export function mayJoinContainerChannel(user: CurrentUser | null, projectMemberIds: number[] | null): boolean {
  if (!isVerified(user)) return false;
  if (isAdmin(user)) return projectMemberIds !== null;
  return projectMemberIds !== null && projectMemberIds.includes(user.id);
}

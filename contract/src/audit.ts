import type { ContainerAction } from './dockers.ts';

/*
 * Every action the audit trail records, `<kind>.<verb>`. The control plane writes only these
 * (record-audit's type), and the Logboek names each in Dutch: a new action that has no Dutch
 * name does not type-check.
 */
export type AuditAction =
  | 'user.verify'
  | 'user.disable'
  | 'user.delete'
  | 'user.delete.unfinished'
  | 'user.developer'
  | 'user.admin'
  | 'user.access.revoke'
  | 'user.access.restore'
  | 'team.create'
  | 'team.add-member'
  | 'team.remove-member'
  | 'group.create'
  | 'group.add-member'
  | 'group.remove-member'
  | 'license.approve'
  | 'license.revoke'
  | 'introducee.create'
  | 'introducee.delete'
  | 'project.approve'
  | 'project.reject'
  | 'project.update'
  | 'project.delete'
  | 'project.access'
  | 'container.create'
  | `container.${ContainerAction}`
  | 'container.delete'
  | 'container.adopt'
  | 'container.suspend'
  | 'thumbnail.capture'
  | 'docker-image.create'
  | 'docker-image.delete'
  | 'docker-image.capabilities'
  | 'level.status'
  | 'level.content'
  | 'level.bulk-status'
  | 'level.bulk-content'
  | 'level-category.create'
  | 'level-category.update'
  | 'level-content.create'
  | 'level-content.update'
  | 'export.users'
  | 'export.levels'
  | 'agent.invite'
  | 'agent.join'
  | 'agent.renew'
  | 'agent.revoke';

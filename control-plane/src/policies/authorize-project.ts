import type { CurrentUser } from '../queries/current-user.ts';
import { notFound } from '../errors.ts';
import { mayUseProjectContainer } from './container-policy.ts';

const PROJECT_NOT_FOUND = 'Dit project bestaat niet.';

/** The project, when the user may use its container; otherwise 404 as if it did not exist. */
export function authorizeProject<Project extends { users: ReadonlyArray<{ id: number }> }>(user: CurrentUser, project: Project | undefined): Project {
  if (!project || !mayUseProjectContainer(user, project.users.map((member) => member.id))) throw notFound(PROJECT_NOT_FOUND);
  return project;
}

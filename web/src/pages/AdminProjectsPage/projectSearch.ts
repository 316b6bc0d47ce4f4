import type { Project } from '../../api/queries/projects.ts';

/** §9: the admin project search looks at the first six members only. */
export const SEARCHED_MEMBERS = 6;

/**
 * The /admin/projects search (spec §2): the term, case-insensitive, in the name, the docker
 * (image) name, the domain, or the names and cohorts of the first six members. The word 'geen'
 * also matches projects without members. An empty term matches everything.
 */
export function matchesProjectSearch(project: Project, term: string): boolean {
  const needle = term.trim().toLowerCase();
  if (needle === '') return true;
  const haystack = [project.name, project.docker ?? '', project.domain];
  for (const user of project.users.slice(0, SEARCHED_MEMBERS)) {
    haystack.push(user.name, user.group?.cohort ?? '');
  }
  if (project.users.length === 0) haystack.push('geen');
  return haystack.some((text) => text.toLowerCase().includes(needle));
}

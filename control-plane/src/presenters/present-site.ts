import type { SiteMemberJson, SiteJson } from '@devplein/contract/projects';
import { UNGROUPED_COHORT } from '@devplein/contract/messages';
import type { SiteRecord } from '../queries/sites.ts';
export type { SiteMemberJson, SiteJson };

/**
 * The websites wall (GET /api/sites, spec §2 Websites, §3 Site).
 *
 * JSON per site: `{ name, domain, users: [{ id, name, group: { id, cohort } | null }], thumbnail }`,
 * members in their entered order; `thumbnail` says whether a picture is served for it (site-policy
 * `isThumbnailServable`), so the wall asks only for pictures that exist. The client groups sites by `users[0].group.cohort`, so that value must
 * always be there: a site whose first member has no group (or that has no members at all) gets
 * the §3 placeholder user in front — `{ id: 0, name: 'unknown', group: { id: 0, cohort: 'Niet
 * ingedeeld' } }` — and keeps its real members after it (their ids mark "Jouw websites").
 */

/** The cohort of sites whose first member has no group (spec §3): the contract's. */
export { UNGROUPED_COHORT };

/** Spec §3: "a placeholder user named unknown and group id 0"; id 0 is never a real user. */
export const PLACEHOLDER_MEMBER: Readonly<SiteMemberJson> = Object.freeze({
  id: 0,
  name: 'unknown',
  group: Object.freeze({ id: 0, cohort: UNGROUPED_COHORT }),
});

export function presentSite(site: SiteRecord): SiteJson {
  const first = site.users[0];
  const users = first?.group ? site.users : [{ ...PLACEHOLDER_MEMBER, group: { ...PLACEHOLDER_MEMBER.group! } }, ...site.users];
  return { name: site.name, domain: site.domain, users, thumbnail: site.thumbnail };
}

/** The cohort a presented site is listed under. */
export const cohortOfSite = (site: SiteJson): string => site.users[0]?.group?.cohort ?? UNGROUPED_COHORT;

const collator = new Intl.Collator('nl', { numeric: true, sensitivity: 'base' });

/**
 * Spec §9: sorted by cohort, then name. Cohorts compare naturally (SD9 before SD10);
 * 'Niet ingedeeld' is not a cohort and comes last, as its filter button does.
 */
export function compareSites(a: SiteJson, b: SiteJson): number {
  const cohortA = cohortOfSite(a);
  const cohortB = cohortOfSite(b);
  if (cohortA !== cohortB) {
    if (cohortA === UNGROUPED_COHORT) return 1;
    if (cohortB === UNGROUPED_COHORT) return -1;
    const byCohort = collator.compare(cohortA, cohortB);
    if (byCohort !== 0) return byCohort;
  }
  return collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The whole wall, presented and in order. */
export function presentSiteWall(sites: readonly SiteRecord[]): SiteJson[] {
  return sites.map(presentSite).sort(compareSites);
}

import { PLACEHOLDER_MEMBER_ID, UNGROUPED_COHORT, type Site } from '../../api/queries/sites.ts';

/** A site prepared once for the wall: its cohort, real members and what the search looks in. */
export interface WallSite {
  site: Site;
  cohort: string;
  /** Member names without the placeholder. */
  memberNames: string[];
  memberIds: ReadonlySet<number>;
  /** Lowercased site name and member names, for 'Zoek naam'. */
  searchText: string;
}

export interface CohortBlock {
  cohort: string;
  sites: WallSite[];
}

/** 'Allemaal' in the filter: no cohort chosen. */
export const ALL_COHORTS = null;
export type CohortFilter = string | null;

export function prepareWall(sites: readonly Site[]): WallSite[] {
  return sites.map((site) => {
    const members = site.users.filter((user) => user.id !== PLACEHOLDER_MEMBER_ID);
    const memberNames = members.map((user) => user.name);
    return {
      site,
      cohort: site.users[0]?.group?.cohort ?? UNGROUPED_COHORT,
      memberNames,
      memberIds: new Set(members.map((user) => user.id)),
      searchText: [site.name, ...memberNames].join('\n').toLocaleLowerCase('nl'),
    };
  });
}

/** The cohorts present, in the server's order, with 'Niet ingedeeld' last (its own filter button). */
export function cohortsOf(sites: readonly WallSite[]): string[] {
  const cohorts: string[] = [];
  const seen = new Set<string>();
  for (const { cohort } of sites) {
    if (cohort === UNGROUPED_COHORT || seen.has(cohort)) continue;
    seen.add(cohort);
    cohorts.push(cohort);
  }
  return cohorts;
}

/** Sites of the chosen cohort whose name or a member's name contains the search term. */
export function filterWall(sites: readonly WallSite[], cohort: CohortFilter, search: string): WallSite[] {
  const term = search.trim().toLocaleLowerCase('nl');
  return sites.filter(
    (entry) => (cohort === ALL_COHORTS || entry.cohort === cohort) && (term === '' || entry.searchText.includes(term)),
  );
}

/** Consecutive blocks per cohort (the server sorts by cohort, then name; 'Niet ingedeeld' last). */
export function groupByCohort(sites: readonly WallSite[]): CohortBlock[] {
  const blocks: CohortBlock[] = [];
  const byCohort = new Map<string, CohortBlock>();
  for (const entry of sites) {
    let block = byCohort.get(entry.cohort);
    if (!block) {
      block = { cohort: entry.cohort, sites: [] };
      byCohort.set(entry.cohort, block);
      blocks.push(block);
    }
    block.sites.push(entry);
  }
  const ungrouped = blocks.findIndex((block) => block.cohort === UNGROUPED_COHORT);
  if (ungrouped >= 0 && ungrouped !== blocks.length - 1) blocks.push(...blocks.splice(ungrouped, 1));
  return blocks;
}

/** The signed-in user's own sites ('Jouw websites'). */
export function ownSites(sites: readonly WallSite[], userId: number | null): WallSite[] {
  if (userId === null) return [];
  return sites.filter((entry) => entry.memberIds.has(userId));
}

import { preload } from 'swr';
import { pathOf } from '@devplein/contract/http/endpoint';
import { siteWall } from '@devplein/contract/http/sites';
import { smallThumbnail } from '@devplein/contract/http/thumbnails';
import type { SiteMemberJson as SiteMember, SiteJson as Site } from '@devplein/contract/projects';
import { UNGROUPED_COHORT } from '@devplein/contract/messages';
import { call, keyOf, useEndpoint } from '../endpoints.ts';
export type { SiteMember, Site };

export const SITES_KEY = keyOf(siteWall, {});

/** The cohort of sites without a grouped first member (spec §3): the contract's. */
export { UNGROUPED_COHORT };

/** The placeholder member's id: never a real user, never shown as a name. */
export const PLACEHOLDER_MEMBER_ID = 0;

/** The wall, already sorted by cohort then name by the server. Public: no login needed. */
export function useSites() {
  return useEndpoint(siteWall, {}, { revalidateOnFocus: false });
}

/**
 * Starts loading the wall at once when the page opened on /websites: otherwise the request
 * would wait for the start-up user fetch (the router renders only after it), a round trip lost.
 */
export function preloadSitesOn(pathname: string): void {
  if (pathname === '/websites' || pathname === '/websites/') void preload(SITES_KEY, () => call(siteWall, {})).catch(() => undefined);
}

/** Small thumbnail of a site, served by the control plane from the stored captures. */
export const thumbnailUrl = (site: Pick<Site, 'name'>): string => pathOf(smallThumbnail, { file: `${site.name}_s.png` });

/** Shown when a site has no (working) thumbnail. */
export const FALLBACK_THUMBNAIL_URL = '/images/without-screen.png';

import type { CurrentUser } from '../queries/current-user.ts';

/**
 * The websites wall is public (spec §2: /websites needs no login), for everyone alike —
 * anonymous, not activated or signed in: the list is the same, the client marks one's own sites.
 */
export const mayViewSiteWall = (_viewer: CurrentUser | null): boolean => true;

/**
 * Only approved projects their owners made visible (`visible` '1') appear on the wall or show a
 * thumbnail: a rejected request, or one awaiting (re)approval, is not published (and cannot run).
 * loadSiteWallText (queries/sites.ts) and the nightly capture write this rule in SQL.
 */
export const isShownOnWall = (project: { visible: boolean; validated: boolean | null }): boolean => project.visible && project.validated === true;

/**
 * A thumbnail is served only when the last capture succeeded: after a failed capture the wall
 * shows the "no screenshot" image instead of a picture of a site that is no longer there.
 * loadSiteWallText (queries/sites.ts) writes this rule in SQL for the wall's `thumbnail` flag.
 */
export const isThumbnailServable = (thumbnail: { has_png: boolean; last_error: string | null }): boolean =>
  thumbnail.has_png && thumbnail.last_error === null;

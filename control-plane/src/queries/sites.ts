import type { Knex } from 'knex';
import type { SiteMemberJson } from '@devplein/contract/projects';

/** A site as loaded: a visible project with its members in entered order, and whether its thumbnail is servable. */
export interface SiteRecord {
  name: string;
  domain: string;
  users: SiteMemberJson[];
  thumbnail: boolean;
}

/**
 * Every approved, visible project (site-policy `isShownOnWall`) with its members in entered order
 * and whether its thumbnail is servable (site-policy `isThumbnailServable`: a stored png and no
 * failed last capture), in ONE query: PostgreSQL builds the JSON (members per project through a
 * lateral subquery on the project_user primary key), so 1,500 sites cost one round trip.
 * Returned as the JSON text, so the wall can tell an unchanged answer by its bytes alone.
 */
export async function loadSiteWallText(knex: Knex): Promise<string> {
  const result = (await knex.raw(`
    select coalesce(json_agg(json_build_object(
             'name', p.name,
             'domain', p.domain,
             'users', coalesce(m.users, '[]'::json),
             'thumbnail', exists (select 1 from thumbnails t where t.project_id = p.id and t.png is not null and t.last_error is null)
           ) order by p.id), '[]'::json)::text as sites
    from projects p
    left join lateral (
      select json_agg(
               json_build_object(
                 'id', u.id,
                 'name', u.name,
                 'group', case when g.id is null then null else json_build_object('id', g.id, 'cohort', g.cohort) end
               )
               order by pu.position, u.id
             ) as users
      from project_user pu
      join users u on u.id = pu.user_id
      left join groups g on g.id = u.group_id
      where pu.project_id = p.id
    ) m on true
    where p.visible = true and p.validated = true
  `)) as { rows: Array<{ sites: string }> };
  return result.rows[0]?.sites ?? '[]';
}

/** The wall's sites as records (see loadSiteWallText). */
export async function loadSiteRecords(knex: Knex): Promise<SiteRecord[]> {
  return JSON.parse(await loadSiteWallText(knex)) as SiteRecord[];
}

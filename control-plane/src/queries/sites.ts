import type { Knex } from 'knex';
import type { SiteRecord } from '../presenters/present-site.ts';

/**
 * Every approved, visible project (site-policy `isShownOnWall`) with its members in entered order, in ONE
 * query: PostgreSQL builds the JSON (members per project through a lateral subquery on the
 * project_user primary key), so 1,500 sites cost one round trip and one JSON.parse.
 */
export async function loadSiteRecords(knex: Knex): Promise<SiteRecord[]> {
  const result = (await knex.raw(`
    select coalesce(json_agg(json_build_object('name', p.name, 'domain', p.domain, 'users', coalesce(m.users, '[]'::json))), '[]'::json)::text as sites
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
  return JSON.parse(result.rows[0]?.sites ?? '[]') as SiteRecord[];
}

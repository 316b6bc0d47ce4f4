/** The projects' JSON as the control plane sends it and the web app reads it: project requests, image options, the websites wall. */
import { z } from 'zod';

/** A member of a project (the request form's team, the approval screens). */
export const projectMemberJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  group: z.strictObject({ id: z.number().int(), cohort: z.string() }).nullable(),
});
export type ProjectMemberJson = z.infer<typeof projectMemberJson>;

/**
 * A project / docker request (spec §3): what the request form edits and the approval screens show.
 * `visible` is the string '1' (shown on the websites page) or '0'; `docker_id` is -1 when the
 * project has no image (its option was removed); `docker` is the image option's name.
 */
export const projectJson = z.strictObject({
  id: z.number().int(),
  docker_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  domain: z.string(),
  visible: z.enum(['1', '0']),
  repro: z.string().nullable(),
  /** The branch git deploy takes (issue 23); null: the repository's default branch. */
  branch: z.string().nullable(),
  users: z.array(projectMemberJson),
  end_date: z.string().nullable(),
  docker: z.string().nullable(),
  /** null = awaiting approval, true = approved, false = rejected. */
  validated: z.boolean().nullable(),
  /**
   * Beyond the spec (issue 35): git deploys sign in with an HTTPS token this member stored, so the
   * approving teacher sees it; null: no token stored. The token itself is never sent.
   */
  deploy_token: z.strictObject({ stored_by: z.strictObject({ id: z.number().int(), name: z.string() }) }).nullable(),
  created_at: z.iso.datetime({ offset: true }),
});
export type ProjectJson = z.infer<typeof projectJson>;

/** GET /api/dockers: one image option of the request form (spec §3: id, name). */
export const dockerImageChoiceJson = z.strictObject({ id: z.number().int(), name: z.string() });
export type DockerImageOptionJson = z.infer<typeof dockerImageChoiceJson>;

/** A member of a site as the wall shows it. */
export const siteMemberJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  group: z.strictObject({ id: z.number().int(), cohort: z.string() }).nullable(),
});
export type SiteMemberJson = z.infer<typeof siteMemberJson>;

/** One visible project on the wall (GET /api/sites). */
export const siteJson = z.strictObject({
  name: z.string(),
  domain: z.string(),
  users: z.array(siteMemberJson),
  /** Whether /misc/browserimg2/small/{name}_s.png serves a picture: without one the wall shows its placeholder and asks for none. */
  thumbnail: z.boolean(),
});
export type SiteJson = z.infer<typeof siteJson>;

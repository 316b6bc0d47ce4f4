/** The projects' JSON as the control plane sends it and the web app reads it: project requests, image options, the websites wall. */

/** A member of a project (the request form's team, the approval screens). */
export interface ProjectMemberJson {
  id: number;
  name: string;
  group: { id: number; cohort: string } | null;
}

/**
 * A project / docker request (spec §3): what the request form edits and the approval screens show.
 * `visible` is the string '1' (shown on the websites page) or '0'; `docker_id` is -1 when the
 * project has no image (its option was removed); `docker` is the image option's name.
 */
export interface ProjectJson {
  id: number;
  docker_id: number;
  name: string;
  description: string;
  domain: string;
  visible: '1' | '0';
  repro: string | null;
  /** The branch git deploy takes (issue 23); null: the repository's default branch. */
  branch: string | null;
  users: ProjectMemberJson[];
  end_date: string | null;
  docker: string | null;
  /** null = awaiting approval, true = approved, false = rejected. */
  validated: boolean | null;
  /**
   * Beyond the spec (issue 35): git deploys sign in with an HTTPS token this member stored, so the
   * approving teacher sees it; null: no token stored. The token itself is never sent.
   */
  deploy_token: { stored_by: { id: number; name: string } } | null;
  created_at: string;
}

/** GET /api/dockers: one image option of the request form (spec §3: id, name). */
export interface DockerImageOptionJson {
  id: number;
  name: string;
}

/** A member of a site as the wall shows it. */
export interface SiteMemberJson {
  id: number;
  name: string;
  group: { id: number; cohort: string } | null;
}

/** One visible project on the wall. */
export interface SiteJson {
  name: string;
  domain: string;
  users: SiteMemberJson[];
  /** Whether /misc/browserimg2/small/{name}_s.png serves a picture: without one the wall shows its placeholder and asks for none. */
  thumbnail: boolean;
}

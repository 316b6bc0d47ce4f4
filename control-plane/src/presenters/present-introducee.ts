import { introduceeGitUsername } from '@devplein/contract/validation/licensesAndIntroducees';

/** One introducee ('meeloper') of GET/POST/DELETE /api/admin/introduction, for admins only. */
export interface IntroduceeJson {
  id: number;
  name: string;
  /** `{name}.{site domain}` (spec §2). */
  domain: string;
  /** The name without its first three characters (spec §2). */
  git_username: string;
  /** The opened (plain) git password: admins hand it to the introducee. */
  git_password: string;
  created_at: string;
}

export interface IntroduceeRow {
  id: number;
  name: string;
  created_at: Date | string;
}

export function presentIntroducee(row: IntroduceeRow, siteDomain: string, gitPassword: string): IntroduceeJson {
  return {
    id: row.id,
    name: row.name,
    domain: `${row.name}.${siteDomain}`,
    git_username: introduceeGitUsername(row.name),
    git_password: gitPassword,
    created_at: new Date(row.created_at).toISOString(),
  };
}

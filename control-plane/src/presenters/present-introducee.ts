import { introduceeGitUsername } from '@devplein/contract/validation/licensesAndIntroducees';
import type { IntroduceeJson } from '@devplein/contract/access';
export type { IntroduceeJson };

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

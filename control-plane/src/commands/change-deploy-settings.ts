import type { Knex } from 'knex';
import type { DeployAuth } from '@devplein/contract/deploys';
import type { SecretBox } from '../crypto/secret-box.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { DeploySettingsRow } from '../queries/deploys.ts';

/**
 * PUT .../deploy-settings: the branch and how git signs in. A new token is stored sealed; a
 * token is kept only while the project signs in with one (another choice drops it). Audited
 * as `project.deploy-settings` with whether a token is stored, never the token.
 */
export async function changeDeploySettings(
  deps: { knex: Knex; secrets: SecretBox },
  before: DeploySettingsRow,
  input: { branch: string | null; auth: DeployAuth; token: string | null },
  actorId: number,
): Promise<void> {
  const sealed = input.auth !== 'token' ? null : input.token ? deps.secrets.seal(input.token) : before.git_token_sealed;
  await deps.knex.transaction(async (trx) => {
    await trx('projects').where('id', before.id).update({ deploy_branch: input.branch, deploy_auth: input.auth, git_token_sealed: sealed, updated_at: trx.fn.now() });
    await recordAudit(trx, {
      actorId,
      action: 'project.deploy-settings',
      subjectType: 'project',
      subjectId: before.id,
      before: { branch: before.deploy_branch, auth: before.deploy_auth, hasToken: before.git_token_sealed !== null },
      after: { branch: input.branch, auth: input.auth, hasToken: sealed !== null, tokenReplaced: input.auth === 'token' && input.token !== null },
    });
  });
}

import type { Knex } from 'knex';
import type { DeployAuth } from '@devplein/contract/deploys';
import type { SecretBox } from '../crypto/secret-box.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { DeploySettingsRow } from '../queries/deploys.ts';

/**
 * PUT .../deploy-settings: the branch and how git signs in. A new token is stored sealed in
 * project_git_tokens, bound to `address` (the repository's, lib/git-credential.ts) and to the
 * member who entered it (issue 35); a token is kept only while the project signs in with one
 * (another choice drops it). Audited as `project.deploy-settings` with whether a token is
 * stored, never the token.
 */
export async function changeDeploySettings(
  deps: { knex: Knex; secrets: SecretBox },
  before: DeploySettingsRow,
  input: { branch: string | null; auth: DeployAuth; token: string | null; address: string | null },
  actorId: number,
): Promise<void> {
  const replaced = input.auth === 'token' && input.token !== null && input.address !== null;
  const keeps = input.auth === 'token' && before.git_token_sealed !== null;
  await deps.knex.transaction(async (trx) => {
    await trx('projects').where('id', before.id).update({ deploy_branch: input.branch, deploy_auth: input.auth, updated_at: trx.fn.now() });
    if (replaced) {
      await trx('project_git_tokens')
        .insert({ project_id: before.id, user_id: actorId, address: input.address, token_sealed: deps.secrets.seal(input.token as string), created_at: trx.fn.now() })
        .onConflict('project_id')
        .merge();
    } else if (!keeps) {
      await trx('project_git_tokens').where({ project_id: before.id }).delete();
    }
    await recordAudit(trx, {
      actorId,
      action: 'project.deploy-settings',
      subjectType: 'project',
      subjectId: before.id,
      before: { branch: before.deploy_branch, auth: before.deploy_auth, hasToken: before.git_token_sealed !== null },
      after: { branch: input.branch, auth: input.auth, hasToken: replaced || keeps, tokenReplaced: replaced, ...(replaced ? { tokenAddress: input.address } : {}) },
    });
  });
}

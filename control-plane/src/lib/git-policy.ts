import type { RepositoryAddressPolicy } from '@devplein/contract/validation/repositoryAddress';
import type { DeploySettingsView } from '@devplein/contract/deploys';
import type { Config } from '../config.ts';

/**
 * The school's git policy (GIT_ALLOWED_HOSTS, GIT_ALLOW_HTTP): what the request form, the
 * control plane and the agent check repository addresses against. No hosts: git deploy is off
 * and every address is refused.
 */
export const gitPolicyOf = (config: Pick<Config, 'GIT_ALLOWED_HOSTS' | 'GIT_ALLOW_HTTP'>): Required<RepositoryAddressPolicy> & DeploySettingsView => ({
  allowedHosts: [...config.GIT_ALLOWED_HOSTS],
  allowHttp: config.GIT_ALLOW_HTTP,
});

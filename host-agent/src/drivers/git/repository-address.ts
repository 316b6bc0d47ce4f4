/**
 * The agent's side of the clone-address rule (issue 23). The rule itself is pure and shared with
 * the web and the control plane: contract/src/validation/repositoryAddress.ts. The agent checks
 * again before git runs, whatever the control plane sent.
 */
import {
  checkRepositoryAddress,
  parseAllowedHost,
  repositoryPort,
  type RepositoryAddress,
  type RepositoryAddressPolicy,
  type RepositoryAddressRefusal,
} from '@devplein/contract/validation/repositoryAddress';

export { checkRepositoryAddress, parseAllowedHost, repositoryPort, type RepositoryAddress, type RepositoryAddressPolicy, type RepositoryAddressRefusal };

/** An address the rule refused; `reason` is the stable code, the message is Dutch. */
export class RepositoryAddressError extends Error {
  constructor(
    readonly reason: RepositoryAddressRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'RepositoryAddressError';
  }
}

/** The accepted address, or a RepositoryAddressError saying why not. */
export function parseRepositoryAddress(raw: string, policy: RepositoryAddressPolicy): RepositoryAddress {
  const check = checkRepositoryAddress(raw, policy);
  if (!check.ok) throw new RepositoryAddressError(check.reason, check.message);
  return check.address;
}

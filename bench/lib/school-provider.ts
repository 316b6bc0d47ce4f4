/**
 * A school identity provider for benchmarks that run the control plane as in production
 * (NODE_ENV=production refuses the development sign-in): the tests' outside provider, signing
 * anyone in as the account its `login_hint` names, with a verified e-mail (the control plane
 * links the account by it).
 */
import { startOutsideProvider, type OutsideProvider } from '../../tests/support/services/outside-provider.ts';

export type BenchSchoolProvider = Pick<OutsideProvider, 'env' | 'close'>;

export function startBenchSchoolProvider(): Promise<BenchSchoolProvider> {
  return startOutsideProvider({ identityFromLoginHint: true });
}

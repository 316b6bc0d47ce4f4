import { signIn } from '@devplein/contract/http/auth';
import { pathOf } from '@devplein/contract/http/endpoint';
import { ssoProviderName } from '../../api/meta.ts';
import { Icon } from '../../components/Icon.tsx';

/**
 * Login: one link to the single-sign-on start path `/auth/{provider short name}` (spec §2;
 * contract/src/http/auth.ts).
 * A plain link, not a router link: the server takes over from there.
 */
export function LoginPage() {
  return (
    <section className="card login-card">
      <div className="notice-icon">
        <Icon name="login" />
      </div>
      <h1>Inloggen</h1>
      <p>Je logt in op devplein met hetzelfde account als bij de andere systemen van school.</p>
      <a className="button button-primary" href={pathOf(signIn, { provider: ssoProviderName() })} data-testid="login-link">
        Inloggen met je schoolaccount
      </a>
    </section>
  );
}

import { Link, NavLink } from 'react-router-dom';
import { logOut, type CurrentUser } from '../api/queries/user.ts';
import { Icon } from '../components/Icon.tsx';
import { profilePath, routePaths } from '../routePaths.ts';

/**
 * The top menu (spec §2 "Menus"): Home; when signed in a link to one's profile showing one's name,
 * and Uitloggen. Uitloggen looks like the links but is a button: logging out is a POST with the
 * CSRF token (a link, a prefetch or a crawler must not sign anyone out), after which the browser
 * goes through the school provider's logout back to the home page.
 */
export function TopBar({
  user,
  menuOpen,
  menuId,
  onToggleMenu,
}: {
  user: CurrentUser | null;
  menuOpen: boolean;
  menuId: string;
  onToggleMenu: () => void;
}) {
  return (
    <header className={user === null ? 'top-bar' : 'top-bar signed-in'}>
      <button
        type="button"
        className="menu-button"
        aria-label="Menu"
        aria-expanded={menuOpen}
        aria-controls={menuId}
        onClick={onToggleMenu}
      >
        <Icon name={menuOpen ? 'close' : 'menu'} />
      </button>
      <Link to={routePaths.home} className="brand" aria-label="devplein, naar de startpagina">
        <span className="brand-mark" aria-hidden="true">
          d
        </span>
        <span className="brand-name">devplein</span>
      </Link>
      <nav className="top-menu" aria-label="Hoofdmenu">
        <NavLink to={routePaths.home} end className="top-link" data-testid="top-home">
          <Icon name="home" />
          <span className="collapsible-label">Home</span>
        </NavLink>
        {user !== null && (
          <>
            <NavLink to={profilePath(user)} className="top-link top-profile" data-testid="top-profile">
              <Icon name="user" />
              <span className="top-profile-name">{user.name}</span>
            </NavLink>
            <button type="button" className="top-link top-logout" data-testid="top-logout" onClick={() => void logOut()}>
              <Icon name="logout" />
              <span className="collapsible-label">Uitloggen</span>
            </button>
          </>
        )}
      </nav>
    </header>
  );
}

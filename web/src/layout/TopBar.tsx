import { Link, NavLink } from 'react-router-dom';
import type { CurrentUser } from '../api/queries/user.ts';
import { Icon } from '../components/Icon.tsx';
import { profilePath, routePaths } from '../routePaths.ts';

/**
 * The top menu (spec §2 "Menus"): Home; when signed in a link to one's profile showing one's name,
 * and a logout link. Logout is a plain link: the server ends the session and redirects to /.
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
            <a href="/logout" className="top-link" data-testid="top-logout">
              <Icon name="logout" />
              <span className="collapsible-label">Uitloggen</span>
            </a>
          </>
        )}
      </nav>
    </header>
  );
}

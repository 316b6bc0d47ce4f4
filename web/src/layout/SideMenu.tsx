import { NavLink } from 'react-router-dom';
import type { CurrentUser } from '../api/queries/user.ts';
import { Icon } from '../components/Icon.tsx';
import { sideMenuSections } from './menu.ts';

/**
 * The side menu (spec §2 "Menus", §6). Landmark `nav` "Zijmenu"; every link's accessible name is
 * its label and it carries `data-testid="menu-{id}"`, so browser tests can assert per role.
 */
export function SideMenu({ user, id, onNavigate }: { user: CurrentUser | null; id?: string; onNavigate?: () => void }) {
  return (
    <nav className="side-menu" aria-label="Zijmenu" id={id}>
      {sideMenuSections(user).map((section) => (
        <div className="menu-section" role="group" aria-labelledby={`menu-heading-${section.id}`} key={section.id} data-testid={`menu-section-${section.id}`}>
          <h2 className="menu-heading" id={`menu-heading-${section.id}`}>
            {section.title}
          </h2>
          <ul>
            {section.items.map((menuItem) => (
              <li key={menuItem.id}>
                <NavLink
                  to={menuItem.to}
                  end
                  className={({ isActive }) => (isActive ? 'menu-link active' : 'menu-link')}
                  data-testid={`menu-${menuItem.id}`}
                  onClick={onNavigate}
                >
                  <Icon name={menuItem.icon} />
                  <span>{menuItem.label}</span>
                </NavLink>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}

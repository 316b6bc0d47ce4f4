import { Link } from 'react-router-dom';
import type {
  AdminContainerAction,
  AdminDockerColumn,
  AdminDockerFilters,
  AdminDockerSort,
  IndexedAdminDocker,
} from '../../api/queries/adminDockers.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { pathTo } from '../../routePaths.ts';
import { AdminDockersTable } from './AdminDockersTable.tsx';
import { AdminDockersToolbar } from './AdminDockersToolbar.tsx';
import type { RowResult } from './useAdminDockerActions.ts';
import '../../styles/dockers.css';
import './admin-dockers-screenshots.css';

export type { RowResult } from './useAdminDockerActions.ts';

export interface AdminDockersPageViewProps {
  loading: boolean;
  /** Why the list is missing: the 503 notice or another Dutch failure text. */
  loadError: { text: string; unavailable: boolean } | null;
  onReload: () => void;
  /** All containers (for the count) and the rows the filters let through, sorted. */
  total: number;
  rows: readonly IndexedAdminDocker[];
  /** With more than one dev server, each name says which one its container is on. */
  showHost: boolean;
  filters: AdminDockerFilters;
  onFilterChange: (column: AdminDockerColumn, value: string) => void;
  sort: AdminDockerSort;
  onSort: (column: AdminDockerColumn) => void;
  selected: ReadonlySet<string>;
  onToggleSelect: (name: string) => void;
  onSelectAll: (names: string[], checked: boolean) => void;
  busy: ReadonlySet<string>;
  results: ReadonlyMap<string, RowResult>;
  /** The line above the table after an action ('… is gestart.', a bulk summary, a 503). */
  message: RowResult | null;
  bulkBusy: boolean;
  onBulk: (action: 'start' | 'stop') => void;
  onAction: (name: string, action: AdminContainerAction) => void;
  confirmingDelete: string | null;
  onAskDelete: (name: string | null) => void;
  onConfirmDelete: (name: string) => void;
  pickingOwner: string | null;
  onPickOwner: (name: string | null) => void;
  onOwnerPicked: (name: string, user: UserSearchHit) => void;
  /** Containers whose 'ververs screenshot' is being sent or awaited. */
  screenshotBusy: ReadonlySet<string>;
  onScreenshot: (name: string, projectId: number) => void;
}
/**
 * Spec §2 admin Dockers: every container in a table with sortable, filterable columns Naam,
 * Gebruiker, Type, Status and Opties; actions per status (§4), delete, owner picking for
 * 'NO OWNER', and start/stop for the selected rows. Beyond the spec: a Screenshot column with
 * when the site was last captured, why the last capture failed, and 'ververs screenshot'.
 */
export function AdminDockersPageView(props: AdminDockersPageViewProps) {
  const { loading, loadError, message } = props;

  return (
    <div className="page admin-page admin-dockers-page">
      <header className="admin-page-header">
        <h1>Dockers</h1>
        <Link className="button button-secondary button-small" to={pathTo('adminDockerImages')}>
          Image-opties beheren
        </Link>
      </header>

      {loadError !== null ? (
        <div className={loadError.unavailable ? 'card admin-dockers-notice' : 'card admin-dockers-notice error-text'} role="alert">
          <p>{loadError.text}</p>
          <button type="button" className="button button-secondary button-small" onClick={props.onReload}>
            Opnieuw proberen
          </button>
        </div>
      ) : loading ? (
        <p className="page-message" role="status">
          Dockers laden…
        </p>
      ) : (
        <>
          <AdminDockersToolbar {...props} />

          <div aria-live="polite">
            {message !== null && (
              <p className={message.ok ? 'card admin-dockers-message' : 'card admin-dockers-message error-text'} role={message.ok ? 'status' : 'alert'}>
                {message.text}
              </p>
            )}
          </div>

          <AdminDockersTable {...props} />
        </>
      )}
    </div>
  );
}

import type { AdminDockersPageViewProps } from './AdminDockersPageView.tsx';

/** The count ('12 van 40 dockers' or '3 geselecteerd') and start/stop for the selected rows. */
export function AdminDockersToolbar({
  rows,
  total,
  selected,
  bulkBusy,
  onBulk,
}: Pick<AdminDockersPageViewProps, 'rows' | 'total' | 'selected' | 'bulkBusy' | 'onBulk'>) {
  return (
    <div className="admin-dockers-toolbar">
      <span className="docker-selection-count">
        {selected.size === 0 ? `${rows.length} van ${total} dockers` : `${selected.size} geselecteerd`}
      </span>
      <button
        type="button"
        className="button button-primary button-small"
        disabled={selected.size === 0 || bulkBusy}
        onClick={() => onBulk('start')}
      >
        Start geselecteerde
      </button>
      <button
        type="button"
        className="button button-secondary button-small"
        disabled={selected.size === 0 || bulkBusy}
        onClick={() => onBulk('stop')}
      >
        Stop geselecteerde
      </button>
    </div>
  );
}

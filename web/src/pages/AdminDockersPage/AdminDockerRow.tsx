import { memo } from 'react';
import {
  ADMIN_ACTION_LABELS,
  NO_OWNER,
  adminActionsFor,
  dutchDateTime,
  type AdminContainerAction,
  type IndexedAdminDocker,
} from '../../api/queries/adminDockers.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { UserSearch } from '../../components/UserSearch.tsx';
import { ScreenshotCell } from './ScreenshotCell.tsx';
import type { RowResult } from './useAdminDockerActions.ts';

export interface AdminDockerRowProps {
  row: IndexedAdminDocker;
  selected: boolean;
  busy: boolean;
  result: RowResult | undefined;
  confirming: boolean;
  picking: boolean;
  onToggleSelect: (name: string) => void;
  onAction: (name: string, action: AdminContainerAction) => void;
  onAskDelete: (name: string | null) => void;
  onConfirmDelete: (name: string) => void;
  onPickOwner: (name: string | null) => void;
  onOwnerPicked: (name: string, user: UserSearchHit) => void;
  screenshotBusy: boolean;
  onScreenshot: (name: string, projectId: number) => void;
  showHost: boolean;
}

/** One container; memoised so typing in a filter re-renders only the rows that change. */
export const AdminDockerRow = memo(function AdminDockerRow(props: AdminDockerRowProps) {
  const { row, selected, busy, result, confirming, picking } = props;
  const { docker, name } = row;
  const actions = adminActionsFor(docker.Status);
  return (
    <tr data-testid="admin-docker-row" data-docker={name} className={busy ? 'row-busy' : undefined} aria-busy={busy}>
      <td className="select-column">
        <input type="checkbox" aria-label={`${name} selecteren`} checked={selected} onChange={() => props.onToggleSelect(name)} />
      </td>
      <td className="docker-name">
        {name}
        {props.showHost && docker.host && (
          <span className="docker-host muted" data-testid="docker-host">
            op {docker.host}
          </span>
        )}
      </td>
      <td>
        {docker.user === NO_OWNER ? (
          <>
            <button
              type="button"
              className="no-owner-button"
              aria-expanded={picking}
              aria-label={`Eigenaar kiezen voor ${name}`}
              onClick={() => props.onPickOwner(picking ? null : name)}
            >
              {NO_OWNER}
            </button>
            {picking && (
              <div className="owner-picker">
                <UserSearch
                  label={`Eigenaar voor ${name}`}
                  placeholder="zoek eigenaar"
                  all
                  disabled={busy}
                  onPick={(user) => props.onOwnerPicked(name, user)}
                />
              </div>
            )}
          </>
        ) : (
          docker.user
        )}
      </td>
      <td className="docker-image">
        {docker.Image}
        {docker.deployedCommit && (
          <span
            className="docker-row-commit"
            data-testid="deployed-commit"
            title={`Online uit git: ${docker.deployedCommit.hash}, ${docker.deployedCommit.author}, ${dutchDateTime(docker.deployedCommit.time)}`}
          >
            <code>{docker.deployedCommit.shortHash}</code> {docker.deployedCommit.subject}
          </span>
        )}
      </td>
      <td className="status-column">
        <span className="docker-row-status">{docker.Status}</span>
        {docker.State === 'exited' && docker.autoStop && (
          <span className="row-result muted" data-testid="auto-stop">
            automatisch gestopt op {dutchDateTime(docker.autoStop.stoppedAt)}: geen bezoekers
          </span>
        )}
        {result !== undefined && (
          <span className={result.ok ? 'row-result row-result-ok' : 'row-result row-result-failed'} data-testid="row-result">
            {result.text}
          </span>
        )}
      </td>
      <td className="screenshot-column" data-testid="screenshot-cell">
        {docker.projectId === null ? (
          <span className="muted">geen project</span>
        ) : (
          <ScreenshotCell
            name={name}
            projectId={docker.projectId}
            screenshot={docker.screenshot ?? null}
            busy={props.screenshotBusy || docker.screenshot?.inFlight === true}
            onScreenshot={props.onScreenshot}
          />
        )}
      </td>
      <td className="options-column">
        {confirming ? (
          <div className="row-actions" role="group" aria-label={`Verwijderen van ${name} bevestigen`}>
            <span>Zeker?</span>
            <button type="button" className="button button-danger button-small" disabled={busy} onClick={() => props.onConfirmDelete(name)}>
              Ja, verwijder
            </button>
            <button type="button" className="button button-secondary button-small" onClick={() => props.onAskDelete(null)}>
              Nee
            </button>
          </div>
        ) : (
          <div className="row-actions">
            {actions.map((action) => (
              <button
                key={action}
                type="button"
                className="button button-secondary button-small"
                disabled={busy}
                aria-label={`${ADMIN_ACTION_LABELS[action]} ${name}`}
                onClick={() => props.onAction(name, action)}
              >
                {ADMIN_ACTION_LABELS[action]}
              </button>
            ))}
            <button
              type="button"
              className="button button-danger button-small"
              disabled={busy}
              aria-label={`Verwijder ${name}`}
              onClick={() => props.onAskDelete(name)}
            >
              Verwijder
            </button>
          </div>
        )}
      </td>
    </tr>
  );
});

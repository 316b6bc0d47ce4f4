import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { STATE_AWAITING, STATE_NOT_CREATED, STATE_REJECTED, STATE_UNREACHABLE, containerName, type PullProgress, type UserDocker } from '../../api/queries/dockers.ts';
import { CARD_ACTION_LABELS, actionsForState, autoStopText, dutchDockerStatus, showsLogs, type CardAction } from './docker-card-texts.ts';
import { exitedOomText } from '../../api/queries/containerStats.ts';
import { pathTo } from '../../routePaths.ts';
import { DOCKER_SERVER_UNREACHABLE } from '@devplein/contract/messages';

export interface DockerCardViewProps {
  docker: UserDocker;
  /** An action runs (own or, through the live channel, someone else's): the card pulses. */
  busy: boolean;
  /** Progress of the image pull while a container is being created. */
  pull: PullProgress | null;
  error: string | null;
  /** A fresh WordPress password, shown once. */
  password: { username: string; password: string } | null;
  confirmingDelete: boolean;
  onAction: (action: CardAction) => void;
  onCancelDelete: () => void;
  onConfirmDelete: () => void;
  onShowLogs: () => void;
  onResetPassword: () => void;
  onDismissPassword: () => void;
  /** The live use of a running container (ContainerStatsView); null on other cards. */
  stats?: ReactNode;
  /** The git-deploy part (DeployPart) of a project with a repository; null on other cards. */
  deploy?: ReactNode;
}

/** Dutch names of Docker's states for the badge; the raw State stays in `data-state`. */
const STATE_LABELS: Record<string, string> = {
  running: 'Draait',
  exited: 'Gestopt',
  paused: 'Gepauzeerd',
  created: 'Aangemaakt',
  restarting: 'Herstart…',
  dead: 'Defect',
  removing: 'Wordt verwijderd…',
  [STATE_UNREACHABLE]: 'Onbereikbaar',
};

function stateTone(state: string): string {
  if (state === 'running') return 'ok';
  if (state === 'paused' || state === 'restarting' || state === STATE_AWAITING) return 'wait';
  if (state === STATE_REJECTED || state === 'dead' || state === STATE_UNREACHABLE) return 'bad';
  if (state === STATE_NOT_CREATED) return 'new';
  return 'off';
}

const UNREACHABLE_TEXT = `${DOCKER_SERVER_UNREACHABLE} Je project is niet weg, maar je kunt er nu niets mee doen. Probeer het over een paar minuten opnieuw.`;

/** One project on the dockers page (spec §2, §4): facts, state, the actions of its state, hints. */
export function DockerCardView(props: DockerCardViewProps) {
  const { docker, busy, pull, error, password, confirmingDelete } = props;
  const name = containerName(docker);
  const state = docker.State;
  const actions = actionsForState(state);
  const logs = showsLogs(state);
  const headingId = `docker-${docker.project.id}-name`;

  return (
    <li
      className={busy ? 'card docker-card docker-busy' : 'card docker-card'}
      data-testid="docker-card"
      data-docker={name}
      data-state={state}
      aria-busy={busy}
      aria-labelledby={headingId}
    >
      <div className="docker-card-header">
        <h3 id={headingId}>{name}</h3>
        <span className={`docker-state docker-state-${stateTone(state)}`} data-testid="docker-state" title={state}>
          {STATE_LABELS[state] ?? state}
        </span>
      </div>
      {docker.Status !== '' && state !== STATE_UNREACHABLE && (
        <p className="docker-status" data-testid="docker-status">
          {dutchDockerStatus(docker.Status)}
        </p>
      )}

      <dl className="docker-facts">
        <dt>Domein</dt>
        <dd>
          {docker.domain === '' ? (
            <span className="muted">geen domein</span>
          ) : (
            <a href={`http://${docker.domain}`} target="_blank" rel="noreferrer">
              {docker.domain}
            </a>
          )}
        </dd>
        <dt>Image</dt>
        <dd>{docker.Image === '' ? <span className="muted">nog geen image</span> : <code>{docker.Image}</code>}</dd>
        <dt>Leden</dt>
        <dd>{docker.Users.length === 0 ? <span className="muted">geen leden</span> : docker.Users.map((user) => user.name).join(', ')}</dd>
      </dl>
      {docker.description !== '' && <p className="docker-description">{docker.description}</p>}

      {state === 'running' && props.stats}

      {state === 'exited' && exitedOomText(docker.exit) !== null && (
        <p className="docker-alert" role="status" data-testid="docker-exited-oom">
          {exitedOomText(docker.exit)}
        </p>
      )}

      {state === 'exited' && docker.autoStop !== null && (
        <p className="docker-notice" data-testid="docker-auto-stop">
          {autoStopText(docker.autoStop)}
        </p>
      )}

      {state === STATE_UNREACHABLE && (
        <p className="docker-notice" role="status">
          {UNREACHABLE_TEXT}
        </p>
      )}

      {docker.ssh && docker.sshCommand !== null && (
        <div className="docker-ssh">
          <p>
            Inloggen met SSH gaat met je SSH key uit je <Link to={pathTo('myProfile')}>profiel</Link>:
          </p>
          <code className="docker-ssh-command" data-testid="docker-ssh-command">
            {docker.sshCommand}
          </code>
        </div>
      )}

      {props.deploy}

      {pull !== null && (
        <div className="docker-progress" role="status" aria-live="polite">
          <p>{pull.status}</p>
          <progress max={1} value={pull.fraction ?? undefined} aria-label="Voortgang image ophalen" />
        </div>
      )}

      {error !== null && (
        <p className="docker-alert" role="alert">
          {error}
        </p>
      )}

      {password !== null && (
        <div className="docker-password" role="status">
          <p>
            Nieuw WordPress-wachtwoord voor <strong>{password.username}</strong>. Schrijf het nu op: je ziet het maar één keer.
          </p>
          <code data-testid="wordpress-password">{password.password}</code>
          <button type="button" className="button button-secondary button-small" onClick={props.onDismissPassword}>
            Verbergen
          </button>
        </div>
      )}

      {confirmingDelete ? (
        <div className="docker-confirm" role="group" aria-label={`Verwijderen van ${name} bevestigen`}>
          <p>
            Wil je <strong>{name}</strong> verwijderen? Het project en de docker met alles erin worden weggegooid.
          </p>
          <div className="docker-actions">
            <button type="button" className="button button-danger button-small" disabled={busy} onClick={props.onConfirmDelete}>
              Ja, verwijderen
            </button>
            <button type="button" className="button button-secondary button-small" disabled={busy} onClick={props.onCancelDelete}>
              Nee
            </button>
          </div>
        </div>
      ) : (
        (actions.length > 0 || logs || docker.wordpress) && (
          <div className="docker-actions">
            {actions.map((action) => (
              <button
                key={action}
                type="button"
                className={actionClass(action)}
                disabled={busy}
                onClick={() => props.onAction(action)}
              >
                {CARD_ACTION_LABELS[action]}
              </button>
            ))}
            {logs && (
              <button type="button" className="button button-secondary button-small" onClick={props.onShowLogs}>
                Logs
              </button>
            )}
            {docker.wordpress && state === 'running' && (
              <button type="button" className="button button-secondary button-small" disabled={busy} onClick={props.onResetPassword}>
                Nieuw WordPress-wachtwoord
              </button>
            )}
            {(state === STATE_AWAITING || state === STATE_REJECTED) && (
              <Link className="button button-secondary button-small" to={`${pathTo('dockersCreate')}?id=${docker.project.id}`}>
                Bewerken
              </Link>
            )}
          </div>
        )
      )}
    </li>
  );
}

function actionClass(action: CardAction): string {
  if (action === 'delete') return 'button button-danger button-small';
  if (action === 'create' || action === 'start' || action === 'unpause') return 'button button-primary button-small';
  return 'button button-secondary button-small';
}

import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import {
  DEPLOY_STATUS_LABELS,
  deployIsActive,
  deployShowsLog,
  relativeDutchTime,
  type DeployLogLine,
  type DockerDeploySummary,
  type ProjectDeploy,
} from '../../api/queries/deploys.ts';
import type { DeployCommitView, DeployPhaseName, DeployStatus } from '@devplein/contract/deploys';
import { pathTo } from '../../routePaths.ts';
import '../../styles/deploys.css';

/** The steps of a deploy in the words of the card. */
export const DEPLOY_PHASE_LABELS: Record<DeployPhaseName, string> = {
  queue: 'wachtrij',
  fetch: 'code ophalen',
  build: 'bouwen',
  copy: 'kopiëren',
  'after-update': 'opdracht na het bijwerken',
  swap: 'omzetten',
};

export interface DeployPartViewProps {
  deploy: DockerDeploySummary;
  /** The newest deploy's log (fetched, then live lines); shown while it runs and after it failed. */
  log: readonly DeployLogLine[];
  /** Why 'Bijwerken' cannot be used (the project is not approved, no container yet); null: it can. */
  blockedReason: string | null;
  /** The 'Bijwerken' request is on its way. */
  starting: boolean;
  error: string | null;
  now: Date;
  onDeploy: () => void;
  /** The collapsible Git-deploy details (webhook, deploy key, settings, history). */
  details?: ReactNode;
}

/** The tone of a status badge (the card's state badge colours). */
export function deployTone(status: DeployStatus): string {
  if (status === 'deployed') return 'ok';
  if (status === 'failed') return 'bad';
  if (status === 'superseded') return 'off';
  return 'wait';
}

/** A commit as the card shows it: the short hash in a chip, the subject, author and a Dutch relative time. */
export function CommitLine({ commit, now, testId }: { commit: DeployCommitView; now: Date; testId?: string }) {
  return (
    <span className="deploy-commit" data-testid={testId}>
      <code className="deploy-hash" title={commit.hash}>
        {commit.shortHash}
      </code>{' '}
      <span className="deploy-subject">{commit.subject}</span>{' '}
      <span className="deploy-meta muted">
        {commit.author}, <time dateTime={commit.time} title={new Date(commit.time).toLocaleString('nl-NL')}>{relativeDutchTime(commit.time, now)}</time>
      </span>
    </span>
  );
}

/** Why the newest deploy failed: the server's message already says what happened to the site. */
function failureText(latest: ProjectDeploy): string {
  return latest.message ?? 'Bijwerken is mislukt. De vorige versie van je site blijft online.';
}

/**
 * The git-deploy part of a dockers card (issue 23): what is online now (commit, author, time),
 * the newest deploy's status and, while it runs or when it failed, its log; 'Bijwerken'; the
 * Git-deploy details below.
 */
export function DeployPartView({ deploy, log, blockedReason, starting, error, now, onDeploy, details }: DeployPartViewProps) {
  const headingId = useId();
  const { current, latest } = deploy;
  const active = deployIsActive(latest);
  const lastLine = log.at(-1);
  const logEnd = useRef<HTMLOListElement>(null);

  // New lines scroll the log to its end, like a terminal.
  useEffect(() => {
    const list = logEnd.current;
    if (list !== null) list.scrollTop = list.scrollHeight;
  }, [log.length]);

  return (
    <section className="deploy-part" aria-labelledby={headingId} data-testid="deploy-part">
      <div className="deploy-part-header">
        <h4 id={headingId}>Git</h4>
        {latest === null ? (
          <span className="docker-state docker-state-new" data-testid="deploy-status">
            Nog niet bijgewerkt
          </span>
        ) : (
          <span className={`docker-state docker-state-${deployTone(latest.status)}`} data-testid="deploy-status" data-status={latest.status}>
            {DEPLOY_STATUS_LABELS[latest.status]}
          </span>
        )}
      </div>

      <dl className="docker-facts">
        <dt>Online</dt>
        <dd>
          {current?.commit ? (
            <CommitLine commit={current.commit} now={now} testId="deploy-current-commit" />
          ) : (
            <span className="muted" data-testid="deploy-current-commit">
              nog geen versie uit git
            </span>
          )}
        </dd>
        <dt>Repository</dt>
        <dd>
          <code className="deploy-repository">{deploy.repository}</code>{' '}
          <span className="muted">{deploy.branch === null ? '(standaardbranch)' : `(branch ${deploy.branch})`}</span>
        </dd>
      </dl>

      {deploy.webhookNotice !== null && (
        <p className="docker-notice deploy-notice" role="status" data-testid="deploy-webhook-notice">
          <strong>Nieuw webhookgeheim.</strong> Iemand verliet het project (
          <time dateTime={deploy.webhookNotice.since}>{relativeDutchTime(deploy.webhookNotice.since, now)}</time>), daarom is het geheim
          vernieuwd. Zet het nieuwe geheim (Git-deploy → Webhook) bij de webhook van je repository op de Git-server: tot dan weigert
          devplein elke push en wordt je site niet vanzelf bijgewerkt.
        </p>
      )}

      {deploy.tokenMissing && (
        <p className="docker-notice deploy-notice" role="status" data-testid="deploy-token-missing">
          <strong>Vul het token opnieuw in.</strong> Het opgeslagen token is verwijderd: het adres van de repository veranderde, of wie het
          invulde zit niet meer in het project. Tot je een token invult (Git-deploy → Instellingen) lukt bijwerken niet.
        </p>
      )}

      {latest !== null && active && latest.commit !== null && latest.id !== current?.id && (
        <p className="deploy-next muted">
          Komt eraan: <CommitLine commit={latest.commit} now={now} />
        </p>
      )}

      {latest !== null && deployShowsLog(latest) && (
        <div className={latest.status === 'failed' ? 'deploy-progress deploy-progress-failed' : 'deploy-progress'} role="status" aria-live="polite">
          {latest.status === 'running' && (
            <>
              <p>
                Bezig met bijwerken
                {lastLine !== undefined && <>: {DEPLOY_PHASE_LABELS[lastLine.phase] ?? lastLine.phase}</>}…
              </p>
              <progress max={100} value={lastLine?.percent ?? undefined} aria-label="Voortgang bijwerken" />
            </>
          )}
          {latest.status === 'failed' && (
            <p className="deploy-failure" data-testid="deploy-failure">
              {failureText(latest)}
            </p>
          )}
          {log.length > 0 && (
            <ol className="deploy-log" ref={logEnd} data-testid="deploy-log" aria-label="Log van het bijwerken">
              {log.map((line, index) => (
                <li key={index} className="deploy-log-line" data-phase={line.phase}>
                  {line.text}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}

      {error !== null && (
        <p className="docker-alert" role="alert">
          {error}
        </p>
      )}

      <div className="docker-actions deploy-actions">
        <button
          type="button"
          className="button button-primary button-small"
          disabled={blockedReason !== null || starting || active}
          onClick={onDeploy}
        >
          {starting ? 'Bezig…' : 'Bijwerken'}
        </button>
        <Link className="button button-secondary button-small" to={pathTo('gitGuide')}>
          Hoe werkt dit?
        </Link>
      </div>
      {blockedReason !== null && <p className="deploy-hint muted">{blockedReason}</p>}

      {details}
    </section>
  );
}

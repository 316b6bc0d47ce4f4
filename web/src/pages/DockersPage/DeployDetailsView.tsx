import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import {
  DEPLOY_STATUS_LABELS,
  DEPLOY_TRIGGER_LABELS,
  DEPLOY_KEY_INSTRUCTION,
  canRollBackTo,
  relativeDutchTime,
  type DeployAuth,
  type DeploySettingsInput,
  type ProjectDeploy,
  type ProjectDeployPanel,
} from '../../api/queries/deploys.ts';
import { BRANCH_MESSAGE, isSafeBranchName } from '@devplein/contract/validation/repositoryAddress';
import { BranchField } from '../../components/BranchField.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { pathTo } from '../../routePaths.ts';
import { CommitLine, deployTone } from './DeployPartView.tsx';

export const AUTH_LABELS: Record<DeployAuth, string> = {
  none: 'Geen (openbare repository)',
  'deploy-key': 'Deploy key (ssh-adres, git@…)',
  token: 'Token (https-adres)',
};

export interface DeployDetailsViewProps {
  open: boolean;
  onToggle: () => void;
  /** Undefined while it loads. */
  panel: ProjectDeployPanel | undefined;
  loadError: string | null;
  /** What is online now (the card's live summary), for "terug naar deze versie". */
  current: ProjectDeploy | null;
  /** A deploy is queued or running (or being asked for): no roll back meanwhile. */
  deployBusy: boolean;
  now: Date;
  savingSettings: boolean;
  /** The server's 422 field errors of the last save. */
  settingsErrors: Record<string, string[]>;
  settingsSaved: boolean;
  renewingSecret: boolean;
  /** POST …/deploy-key is under way. */
  makingKey: boolean;
  actionError: string | null;
  onSaveSettings: (input: DeploySettingsInput) => void;
  onNewSecret: () => void;
  /** 'Deploy key maken': the project has none yet (reading the panel makes none, issue 35). */
  onMakeKey: () => void;
  onRollBack: (deployId: number) => void;
}

/**
 * The card's collapsible "Git-deploy" details: the webhook (URL, hidden secret, 'Nieuw geheim'),
 * the deploy key with the Dutch instruction, the branch/auth/token form and the history with
 * "terug naar deze versie" on earlier versions that were online.
 */
export function DeployDetailsView(props: DeployDetailsViewProps) {
  const regionId = useId();
  const { open, panel } = props;
  return (
    <div className="deploy-details">
      <button type="button" className="deploy-details-toggle" aria-expanded={open} aria-controls={regionId} onClick={props.onToggle}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> Git-deploy
      </button>
      {open && (
        <div id={regionId} className="deploy-details-body" data-testid="deploy-details">
          {props.loadError !== null && (
            <p className="docker-alert" role="alert">
              {props.loadError}
            </p>
          )}
          {panel === undefined && props.loadError === null && (
            <p className="muted" role="status">
              Gegevens laden…
            </p>
          )}
          {panel !== undefined && <PanelSections {...props} panel={panel} />}
        </div>
      )}
    </div>
  );
}

function PanelSections(props: DeployDetailsViewProps & { panel: ProjectDeployPanel }) {
  const { panel } = props;
  const [secretShown, setSecretShown] = useState(false);
  return (
    <>
      {props.actionError !== null && (
        <p className="docker-alert" role="alert">
          {props.actionError}
        </p>
      )}

      <section className="deploy-section" aria-label="Webhook">
        <h5>Webhook: bijwerken bij elke push</h5>
        <p className="deploy-help">
          Zet deze URL en dit geheim bij de webhooks van je repository (content type <code>application/json</code>, alleen
          push-events). <Link to={pathTo('gitGuide')}>Waar dat staat</Link>
        </p>
        <div className="deploy-copy-row">
          <span className="deploy-copy-label">URL</span>
          <code className="deploy-secret" data-testid="webhook-url">
            {panel.webhook.url}
          </code>
          <CopyButton text={panel.webhook.url} label="Webhook-URL kopiëren" />
        </div>
        <div className="deploy-copy-row">
          <span className="deploy-copy-label">Geheim</span>
          <code className="deploy-secret" data-testid="webhook-secret">
            {secretShown ? panel.webhook.secret : '••••••••••••••••'}
          </code>
          <span className="deploy-copy-buttons">
            <button
              type="button"
              className="button button-secondary button-small"
              aria-pressed={secretShown}
              onClick={() => setSecretShown((shown) => !shown)}
            >
              {secretShown ? 'Verberg' : 'Toon'}
            </button>
            <CopyButton text={panel.webhook.secret} label="Webhookgeheim kopiëren" />
          </span>
        </div>
        <p className="deploy-help">
          <button type="button" className="button button-secondary button-small" disabled={props.renewingSecret} onClick={props.onNewSecret}>
            {props.renewingSecret ? 'Bezig…' : 'Nieuw geheim'}
          </button>{' '}
          <span className="muted">Het oude geheim werkt daarna niet meer: zet het nieuwe ook bij je repository.</span>
        </p>
      </section>

      <section className="deploy-section" aria-label="Deploy key">
        <h5>Deploy key: voor een privé-repository</h5>
        {panel.deployKey === null && panel.deployKeyStatus === 'none' ? (
          <>
            <p className="deploy-help" data-testid="deploy-key-none">
              Dit project heeft nog geen deploy key. Maak er een als je repository privé is en je met een ssh-adres (<code>git@…</code>) werkt; de
              geheime helft blijft op de dockerserver.
            </p>
            <button type="button" className="button button-secondary button-small" disabled={props.makingKey} onClick={props.onMakeKey}>
              {props.makingKey ? 'Bezig…' : 'Deploy key maken'}
            </button>
          </>
        ) : panel.deployKey === null ? (
          <p className="muted" data-testid="deploy-key-missing">
            De deploy key kon nu niet worden opgehaald (de dockerserver antwoordt niet). Probeer het later opnieuw.
          </p>
        ) : (
          <>
            <p className="deploy-help">
              <strong data-testid="deploy-key-instruction">{DEPLOY_KEY_INSTRUCTION}</strong>. Dat doe je in de instellingen van je
              repository op de Git-server (bij <em>Deploy keys</em>), met een ssh-adres (<code>git@…</code>) op het aanvraagformulier.
            </p>
            <pre className="deploy-key" data-testid="deploy-key">
              {panel.deployKey.publicKey}
            </pre>
            <div className="deploy-key-actions">
              <CopyButton text={panel.deployKey.publicKey} label="Publieke sleutel kopiëren" />
              <span className="deploy-fingerprint muted">
                Vingerafdruk: <code>{panel.deployKey.fingerprint}</code>
              </span>
            </div>
          </>
        )}
      </section>

      <DeploySettingsForm
        key={`${panel.branch ?? ''}|${panel.auth}|${String(panel.hasToken)}`}
        panel={panel}
        saving={props.savingSettings}
        errors={props.settingsErrors}
        saved={props.settingsSaved}
        onSave={props.onSaveSettings}
      />

      <section className="deploy-section" aria-label="Geschiedenis">
        <h5>Geschiedenis</h5>
        {panel.deploys.length === 0 ? (
          <p className="muted">Nog niet bijgewerkt.</p>
        ) : (
          <ol className="deploy-history" data-testid="deploy-history">
            {panel.deploys.map((deploy) => (
              <HistoryItem
                key={deploy.id}
                deploy={deploy}
                online={props.current?.id === deploy.id}
                canRollBack={canRollBackTo(deploy, props.current, props.deployBusy)}
                now={props.now}
                onRollBack={props.onRollBack}
              />
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

function HistoryItem({
  deploy,
  online,
  canRollBack,
  now,
  onRollBack,
}: {
  deploy: ProjectDeploy;
  online: boolean;
  canRollBack: boolean;
  now: Date;
  onRollBack: (deployId: number) => void;
}) {
  return (
    <li className="deploy-history-item" data-testid="deploy-history-item" data-deploy={deploy.id}>
      <div className="deploy-history-head">
        <span className={`docker-state docker-state-${deployTone(deploy.status)}`}>{DEPLOY_STATUS_LABELS[deploy.status]}</span>
        <span className="muted">
          {DEPLOY_TRIGGER_LABELS[deploy.trigger]}
          {deploy.requestedBy !== null && ` door ${deploy.requestedBy.name}`},{' '}
          <time dateTime={deploy.createdAt}>{relativeDutchTime(deploy.createdAt, now)}</time>
        </span>
        {online && <strong className="deploy-online">nu online</strong>}
      </div>
      {deploy.commit !== null && (
        <p className="deploy-history-commit">
          <CommitLine commit={deploy.commit} now={now} />
        </p>
      )}
      {deploy.message !== null && <p className="deploy-history-message">{deploy.message}</p>}
      {canRollBack && (
        <button type="button" className="button button-secondary button-small" onClick={() => onRollBack(deploy.id)}>
          terug naar deze versie
        </button>
      )}
    </li>
  );
}

function DeploySettingsForm({
  panel,
  saving,
  errors,
  saved,
  onSave,
}: {
  panel: ProjectDeployPanel;
  saving: boolean;
  errors: Record<string, string[]>;
  saved: boolean;
  onSave: (input: DeploySettingsInput) => void;
}) {
  const formId = useId();
  const [branch, setBranch] = useState(panel.branch ?? '');
  const [auth, setAuth] = useState<DeployAuth>(panel.auth);
  const [token, setToken] = useState('');

  const branchProblem = branch.trim() !== '' && !isSafeBranchName(branch.trim()) ? BRANCH_MESSAGE : undefined;
  const tokenProblem = auth === 'token' && !panel.hasToken && token.trim() === '' ? 'Vul het token in dat je op de Git-server hebt gemaakt.' : undefined;
  const blocked = branchProblem !== undefined || tokenProblem !== undefined;
  // The server's messages for fields that have no place of their own here (or are hidden now).
  const shownFields = auth === 'token' ? ['branch', 'auth', 'token'] : ['branch', 'auth'];
  const otherErrors = Object.entries(errors).flatMap(([field, messages]) => (shownFields.includes(field) ? [] : messages));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (blocked || saving) return;
    onSave({ branch: branch.trim(), auth, ...(auth === 'token' && token.trim() !== '' ? { token: token.trim() } : {}) });
  };

  return (
    <form className="deploy-section deploy-settings" onSubmit={submit} noValidate aria-label="Instellingen voor bijwerken">
      <h5>Instellingen</h5>
      <BranchField id={`${formId}-branch`} value={branch} onChange={setBranch} problem={branchProblem ?? errors.branch?.join(' ')} />
      <fieldset className="field deploy-auth">
        <legend className="field-label">Inloggen bij de Git-server</legend>
        {(Object.keys(AUTH_LABELS) as DeployAuth[]).map((option) => (
          <label key={option} className="radio-field">
            <input type="radio" name={`${formId}-auth`} value={option} checked={auth === option} onChange={() => setAuth(option)} />
            {AUTH_LABELS[option]}
          </label>
        ))}
        <FieldError messages={errors.auth} />
      </fieldset>
      {auth === 'token' && (
        <div className="field">
          <label className="field-label" htmlFor={`${formId}-token`}>
            Token
          </label>
          <input
            type="password"
            id={`${formId}-token`}
            value={token}
            autoComplete="new-password"
            placeholder={panel.hasToken ? 'leeg laten: het opgeslagen token blijft' : 'token met alleen leesrechten'}
            aria-describedby={`${formId}-token-hint`}
            onChange={(event) => setToken(event.target.value)}
          />
          <span id={`${formId}-token-hint`} className="field-hint" data-testid="token-hint">
            {panel.token !== null
              ? `Opgeslagen door ${panel.token.storedBy.name} op ${new Date(panel.token.storedAt).toLocaleDateString('nl-NL', { day: 'numeric', month: 'long', year: 'numeric' })}, alleen voor dit repository-adres. Vul alleen iets in om het te vervangen.`
              : panel.hasToken
                ? 'Er is een token opgeslagen. Vul alleen iets in om het te vervangen.'
                : 'Er is nog geen token opgeslagen.'}
          </span>
          <FieldError messages={tokenProblem === undefined ? errors.token : [tokenProblem]} />
        </div>
      )}
      <FieldError messages={otherErrors} />
      <div className="deploy-actions">
        <button type="submit" className="button button-primary button-small" disabled={blocked || saving}>
          {saving ? 'Bezig…' : 'Opslaan'}
        </button>
        {saved && (
          <span className="deploy-saved" role="status">
            Opgeslagen
          </span>
        )}
      </div>
    </form>
  );
}

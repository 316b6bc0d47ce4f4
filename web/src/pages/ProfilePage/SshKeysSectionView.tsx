import type { FormEvent } from 'react';
import { Icon } from '../../components/Icon.tsx';
import { fingerprintLine, type SshKey } from '../../api/queries/sshKeys.ts';
import { SSH_KEY_MAX_LENGTH, SSH_KEY_NAME_MAX_LENGTH } from '@devplein/contract/validation/sshKeyFormat';
import '../../styles/ssh-keys.css';

/** Everything the SSH keys section shows; SshKeysSection owns the state and the requests. */
export interface SshKeysSectionViewProps {
  keys: SshKey[] | undefined;
  loadFailed: boolean;
  keyText: string;
  /** The text looks like a private key: say which file to use instead. */
  privateKeyPasted: boolean;
  name: string;
  /** Message under the form: 'Dit is geen geldige SSH key.', 'SshKey bestaat al.', … */
  formError: string | null;
  saved: boolean;
  canSave: boolean;
  saving: boolean;
  /** Key whose removal waits for confirmation. */
  confirmingId: number | null;
  deletingId: number | null;
  deleteError: string | null;
  onKeyTextChange: (text: string) => void;
  onNameChange: (name: string) => void;
  onSubmit: () => void;
  onAskDelete: (id: number | null) => void;
  onDelete: (id: number) => void;
}

/** The profile's SSH keys card: the list (name + `ssh-keygen -l` line) and the add form. */
export function SshKeysSectionView(props: SshKeysSectionViewProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  return (
    <section className="card ssh-keys" aria-labelledby="ssh-keys-heading" data-testid="ssh-keys-section">
      <h2 id="ssh-keys-heading">
        <Icon name="key" /> SSH keys
      </h2>
      <p className="ssh-keys-intro">
        Met een SSH key log je zonder wachtwoord in op je dockers. Heb je er nog geen? Maak er een met{' '}
        <code>ssh-keygen -t ed25519</code> en plak hieronder de inhoud van <code>~/.ssh/id_ed25519.pub</code>. Deel nooit
        je privé-key (het bestand zonder <code>.pub</code>).
      </p>

      <KeyList {...props} />

      <form className="ssh-key-form" onSubmit={submit} noValidate>
        <h3>SSH key toevoegen</h3>
        <label className="field">
          <span className="field-label">Publieke key</span>
          <textarea
            name="sshKey"
            rows={4}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            maxLength={SSH_KEY_MAX_LENGTH}
            placeholder="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… naam@laptop"
            value={props.keyText}
            aria-invalid={props.formError !== null}
            aria-describedby="ssh-key-form-message"
            onChange={(event) => props.onKeyTextChange(event.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Naam</span>
          <input
            name="name"
            type="text"
            maxLength={SSH_KEY_NAME_MAX_LENGTH}
            placeholder="bijv. laptop"
            value={props.name}
            onChange={(event) => props.onNameChange(event.target.value)}
          />
        </label>
        <div id="ssh-key-form-message" aria-live="polite">
          {props.formError !== null && (
            <p className="form-error" role="alert">
              {props.formError}
            </p>
          )}
          {props.privateKeyPasted && (
            <p className="form-hint">
              Let op: dit is een privé-key. Die houd je geheim. Plak de inhoud van het bestand dat eindigt op{' '}
              <code>.pub</code>.
            </p>
          )}
          {props.saved && props.formError === null && <p className="form-success">Je SSH key is opgeslagen.</p>}
        </div>
        <button type="submit" className="button button-primary" disabled={!props.canSave || props.saving}>
          {props.saving ? 'Bezig met opslaan…' : 'Opslaan'}
        </button>
      </form>
    </section>
  );
}

function KeyList({ keys, loadFailed, confirmingId, deletingId, deleteError, onAskDelete, onDelete }: SshKeysSectionViewProps) {
  if (loadFailed) return <p className="form-error">Je SSH keys konden niet geladen worden. Probeer het later opnieuw.</p>;
  if (keys === undefined) return <p className="muted">SSH keys laden…</p>;
  if (keys.length === 0) return <p className="muted ssh-keys-empty">Je hebt nog geen SSH keys toegevoegd.</p>;
  return (
    <>
      <ul className="ssh-key-list" aria-label="Jouw SSH keys">
        {keys.map((key) => (
          <li key={key.id} className="ssh-key-item" data-testid="ssh-key-item">
            <div className="ssh-key-text">
              <span className="ssh-key-name">{key.name}</span>
              <code className="ssh-key-fingerprint">{fingerprintLine(key)}</code>
            </div>
            {confirmingId === key.id ? (
              <div className="ssh-key-confirm" role="group" aria-label={`Verwijderen van ${key.name} bevestigen`}>
                <span>Weet je het zeker?</span>
                <button
                  type="button"
                  className="button button-danger"
                  disabled={deletingId === key.id}
                  onClick={() => onDelete(key.id)}
                >
                  Ja, verwijderen
                </button>
                <button type="button" className="button button-secondary" onClick={() => onAskDelete(null)}>
                  Nee
                </button>
              </div>
            ) : (
              <button
                type="button"
                className="button button-secondary"
                aria-label={`${key.name} verwijderen`}
                onClick={() => onAskDelete(key.id)}
              >
                Verwijderen
              </button>
            )}
          </li>
        ))}
      </ul>
      {deleteError !== null && (
        <p className="form-error" role="alert">
          {deleteError}
        </p>
      )}
    </>
  );
}

import type { FormEvent } from 'react';
import { Icon } from '../../components/Icon.tsx';
import type { OwnLicense } from '../../api/queries/licenses.ts';
import {
  LICENSE_DESCRIPTION_MAX,
  LICENSE_DESCRIPTION_MIN,
  LICENSE_NAME_MAX,
} from '@devplein/contract/validation/licensesAndIntroducees';
import '../../styles/licenses-and-introducees.css';

/** The status line of a request. */
export const licenseStatusLabel = (license: { approved: boolean }): string => (license.approved ? 'Goedgekeurd' : 'In behandeling');

export interface LicensesSectionViewProps {
  licenses: OwnLicense[] | undefined;
  loadFailed: boolean;
  license: string;
  description: string;
  formError: string | null;
  saved: boolean;
  canSave: boolean;
  saving: boolean;
  withdrawingId: number | null;
  withdrawError: string | null;
  onLicenseChange: (value: string) => void;
  onDescriptionChange: (value: string) => void;
  onSubmit: () => void;
  onWithdraw: (id: number) => void;
}

/** The profile's licences card: one's requests with their status, and the request form. */
export function LicensesSectionView(props: LicensesSectionViewProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  const descriptionLength = props.description.trim().length;
  return (
    <section className="card profile-licenses" aria-labelledby="licenses-heading" data-testid="licenses-section">
      <h2 id="licenses-heading">
        <Icon name="key" /> Licenties
      </h2>
      <p className="profile-licenses-intro">
        Heb je voor school software nodig met een licentie (bijvoorbeeld JetBrains of Adobe Creative Cloud)? Vraag hem hier
        aan. Een docent keurt je aanvraag goed.
      </p>

      <LicenseList {...props} />

      <form className="license-form" onSubmit={submit} noValidate aria-label="Licentie aanvragen">
        <h3>Licentie aanvragen</h3>
        <label className="field">
          <span className="field-label">Licentie</span>
          <input
            name="license"
            type="text"
            maxLength={LICENSE_NAME_MAX}
            placeholder="bijv. JetBrains"
            value={props.license}
            onChange={(event) => props.onLicenseChange(event.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Omschrijving</span>
          <textarea
            name="description"
            rows={3}
            maxLength={LICENSE_DESCRIPTION_MAX}
            placeholder="Waarvoor heb je de licentie nodig?"
            value={props.description}
            aria-describedby="license-description-count"
            onChange={(event) => props.onDescriptionChange(event.target.value)}
          />
          <span id="license-description-count" className="field-hint">
            {descriptionLength < LICENSE_DESCRIPTION_MIN
              ? `Minimaal ${LICENSE_DESCRIPTION_MIN} tekens.`
              : `${descriptionLength} van maximaal ${LICENSE_DESCRIPTION_MAX} tekens.`}
          </span>
        </label>
        <div aria-live="polite">
          {props.formError !== null && (
            <p className="form-error" role="alert">
              {props.formError}
            </p>
          )}
          {props.saved && props.formError === null && <p className="form-success">Je aanvraag is verstuurd.</p>}
        </div>
        <button type="submit" className="button button-primary" disabled={!props.canSave || props.saving}>
          {props.saving ? 'Bezig met aanvragen…' : 'Aanvragen'}
        </button>
      </form>
    </section>
  );
}

function LicenseList({ licenses, loadFailed, withdrawingId, withdrawError, onWithdraw }: LicensesSectionViewProps) {
  if (loadFailed) return <p className="form-error">Je licenties konden niet worden geladen. Probeer het later opnieuw.</p>;
  if (licenses === undefined) return <p className="muted">Licenties laden…</p>;
  if (licenses.length === 0) return <p className="muted">Je hebt nog geen licenties aangevraagd.</p>;
  return (
    <>
      <ul className="license-list" aria-label="Jouw licenties">
        {licenses.map((license) => (
          <li key={license.id} className="license-item" data-testid="license-item">
            <div className="license-text">
              <span className="license-item-name">{license.license}</span>
              <span className="license-item-description">{license.description}</span>
            </div>
            <span className={license.approved ? 'license-status license-status-approved' : 'license-status'}>
              {licenseStatusLabel(license)}
            </span>
            {!license.approved && (
              <button
                type="button"
                className="button button-secondary button-small"
                disabled={withdrawingId === license.id}
                aria-label={`Aanvraag ${license.license} intrekken`}
                onClick={() => onWithdraw(license.id)}
              >
                Intrekken
              </button>
            )}
          </li>
        ))}
      </ul>
      {withdrawError !== null && (
        <p className="form-error" role="alert">
          {withdrawError}
        </p>
      )}
    </>
  );
}

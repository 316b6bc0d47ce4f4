import { useId } from 'react';
import type { FieldErrors } from '../../api/client.ts';
import type { DeployForm } from '../../api/queries/adminDockers.ts';
import { FieldError } from '../../components/FieldError.tsx';

export interface DeployEditorProps {
  imageName: string;
  form: DeployForm;
  /** 422 field errors of the save, keyed as the server names them ('deploy.webRoot', …). */
  errors: FieldErrors;
  saving: boolean;
  onChange: (form: DeployForm) => void;
  onSave: () => void;
  onCancel: () => void;
}

interface FieldSpec {
  key: keyof DeployForm;
  label: string;
  help: string;
  placeholder: string;
  multiline?: boolean;
}

const FIELDS: readonly FieldSpec[] = [
  {
    key: 'webRoot',
    label: 'Webroot in de container',
    help: 'De map die de code uit de repository wordt. Leeg: studenten kunnen bij deze image-optie geen repository publiceren.',
    placeholder: '/var/www/html',
  },
  {
    key: 'afterUpdate',
    label: 'Opdracht na bijwerken (optioneel)',
    help: 'Draait in de container als de gewone gebruiker, met een tijdslimiet. Mislukt hij, dan blijft de vorige versie staan.',
    placeholder: 'composer install --no-dev',
  },
  {
    key: 'keepPaths',
    label: 'Bewaren bij bijwerken (één pad per regel)',
    help: 'Paden binnen de webroot die een nieuwe versie niet overschrijft, zoals uploads en instellingen.',
    placeholder: 'wp-content/uploads\nwp-config.php\n.env',
    multiline: true,
  },
  {
    key: 'buildCommand',
    label: 'Bouwopdracht (optioneel)',
    help: 'Alleen als de image de gereedschappen heeft, bijvoorbeeld Node.js voor npm.',
    placeholder: 'npm run build',
  },
  {
    key: 'buildOutput',
    label: 'Map met het bouwresultaat',
    help: 'Binnen de repository; deze map wordt de site.',
    placeholder: 'dist',
  },
];

/** The git deploy settings of one image option (issue 23), as a card under the images table. */
export function DeployEditor({ imageName, form, errors, saving, onChange, onSave, onCancel }: DeployEditorProps) {
  const ids = useId();
  return (
    <form
      className="card deploy-edit"
      aria-label={`Git-deploy van ${imageName}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
    >
      <h2>Git-deploy van {imageName}</h2>
      <p className="muted">Geldt vanaf de volgende keer dat een project van deze image-optie zijn repository publiceert.</p>
      {FIELDS.map((field) => {
        const id = `${ids}-${field.key}`;
        const fieldErrors = errors[`deploy.${field.key}`] ?? [];
        const describedBy = [`${id}-help`, ...(fieldErrors.length > 0 ? [`${id}-error`] : [])].join(' ');
        const common = {
          id,
          name: field.key,
          value: form[field.key],
          placeholder: field.placeholder,
          spellCheck: false,
          autoCapitalize: 'off',
          disabled: saving,
          'aria-invalid': fieldErrors.length > 0,
          'aria-describedby': describedBy,
        };
        return (
          <div className="field" key={field.key}>
            <label className="field-label" htmlFor={id}>
              {field.label}
            </label>
            {field.multiline ? (
              <textarea {...common} rows={3} onChange={(event) => onChange({ ...form, [field.key]: event.target.value })} />
            ) : (
              <input {...common} type="text" onChange={(event) => onChange({ ...form, [field.key]: event.target.value })} />
            )}
            <p className="field-help" id={`${id}-help`}>
              {field.help}
            </p>
            <FieldError as="p" id={`${id}-error`} messages={fieldErrors} />
          </div>
        );
      })}
      <FieldError as="p" role="alert" messages={errors['deploy']} />
      <div className="form-actions">
        <button type="submit" className="button button-primary button-small" disabled={saving}>
          {saving ? 'Bezig met opslaan…' : 'Git-deploy opslaan'}
        </button>
        <button type="button" className="button button-secondary button-small" onClick={onCancel}>
          Annuleren
        </button>
      </div>
    </form>
  );
}

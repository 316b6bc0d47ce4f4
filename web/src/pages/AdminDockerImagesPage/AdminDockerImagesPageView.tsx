import { useId, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { FieldErrors } from '../../api/client.ts';
import type { AdminDockerImage, DeployForm, DockerImageInput } from '../../api/queries/adminDockers.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { pathTo } from '../../routePaths.ts';
import { CONTAINER_CAPABILITIES } from '@devplein/contract/validation/containerCapabilities';
import { CapabilityCheckboxes } from './CapabilityCheckboxes.tsx';
import { DeployEditor } from './DeployEditor.tsx';
import '../../styles/dockers.css';

export interface AdminDockerImagesPageViewProps {
  images: AdminDockerImage[] | undefined;
  loadFailed: boolean;
  /** The image option whose removal waits for confirmation. */
  confirmingDelete: number | null;
  deletingId: number | null;
  /** The last outcome above the list: a 409 refusal, or '… is verwijderd.' */
  message: { ok: boolean; text: string } | null;
  onAskDelete: (id: number | null) => void;
  onConfirmDelete: (image: AdminDockerImage) => void;
  form: DockerImageInput;
  fieldErrors: FieldErrors;
  formError: string | null;
  saving: boolean;
  onFormChange: (form: DockerImageInput) => void;
  onSubmit: () => void;
  /** The option whose capabilities are being edited, with the selection so far. */
  editing: { id: number; capabilities: string[] } | null;
  /** 422 field errors of the capabilities edit. */
  editErrors: string[];
  savingEdit: boolean;
  onEdit: (image: AdminDockerImage | null) => void;
  onEditChange: (capabilities: string[]) => void;
  onSaveEdit: () => void;
  /** The option whose git deploy settings are being edited, with the fields so far. */
  deployEditing: { id: number; form: DeployForm } | null;
  deployErrors: FieldErrors;
  savingDeploy: boolean;
  onEditDeploy: (image: AdminDockerImage | null) => void;
  onDeployChange: (form: DeployForm) => void;
  onSaveDeploy: () => void;
}

const yesNo = (value: boolean) => <span className={value ? 'badge badge-yes' : 'badge'}>{value ? 'Ja' : 'Nee'}</span>;

/** The capabilities of an option in the table: their names, or that there are none. */
const capabilityList = (capabilities: readonly string[]) =>
  capabilities.length === 0 ? (
    <span className="muted">geen</span>
  ) : (
    <span className="capability-names" title={capabilities.length === CONTAINER_CAPABILITIES.length ? 'alle toegestane rechten (zoals vóór deze instelling)' : undefined}>
      {capabilities.map((name) => (
        <code key={name}>{name}</code>
      ))}
    </span>
  );

/**
 * /admin/dockers/images: the image options students choose from in the request form, with how
 * many projects use each, their Linux capabilities and git deploy settings (editable per option),
 * delete (refused while in use) and a form to add one.
 */
export function AdminDockerImagesPageView(props: AdminDockerImagesPageViewProps) {
  const { images, loadFailed, confirmingDelete, deletingId, message, form, fieldErrors, editing } = props;
  // The editor is a card under the table (inside a row it would widen the table past the page).
  const editingImage = editing === null ? undefined : images?.find((image) => image.id === editing.id);
  const { deployEditing } = props;
  const deployImage = deployEditing === null ? undefined : images?.find((image) => image.id === deployEditing.id);
  const ids = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  const fieldError = (field: keyof DockerImageInput) =>
    fieldErrors[field]?.map((text) => (
      <p key={text} className="field-error" id={`${ids}-${field}-error`}>
        {text}
      </p>
    ));

  return (
    <div className="page admin-page admin-docker-images-page">
      <header className="admin-page-header">
        <h1>Image-opties</h1>
        <Link className="button button-secondary button-small" to={pathTo('adminDockers')}>
          Terug naar dockers
        </Link>
      </header>
      <p className="admin-lead">Uit deze images kiezen studenten als ze een docker aanvragen.</p>

      <div aria-live="polite">
        {message !== null && (
          <p className={message.ok ? 'card admin-dockers-message' : 'card admin-dockers-message error-text'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
      </div>

      <AsyncContent
        data={images}
        failed={loadFailed}
        errorText="De image-opties konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Image-opties laden…"
      >
        {(images) => (
          <DataTable
            columns={[
              { header: 'Naam' },
              { header: 'Image' },
              { header: 'SSH' },
              { header: 'WordPress' },
              { header: 'Rechten' },
              { header: 'Git-deploy' },
              { header: 'Projecten', className: 'numeric' },
              { header: 'Opties', className: 'options-column' },
            ]}
            rows={images}
            className="docker-table"
            emptyText="Er zijn nog geen image-opties."
            renderRow={(image) => (
              <tr key={image.id} data-testid="docker-image-row">
                <td className="docker-name">{image.name}</td>
                <td className="docker-image">{image.image === '' ? <span className="muted">geen image</span> : image.image}</td>
                <td>{yesNo(image.ssh)}</td>
                <td>{yesNo(image.wordpress)}</td>
                <td className="docker-capabilities">
                  {capabilityList(image.capabilities)}
                  <button
                    type="button"
                    className="button button-secondary button-small capability-edit-button"
                    aria-label={`Rechten van ${image.name} wijzigen`}
                    aria-expanded={editing?.id === image.id}
                    onClick={() => props.onEdit(editing?.id === image.id ? null : image)}
                  >
                    Wijzigen
                  </button>
                </td>
                <td className="deploy-root">
                  {image.deploy.webRoot === null ? <span className="muted">niet aangeboden</span> : <code>{image.deploy.webRoot}</code>}
                  <button
                    type="button"
                    className="button button-secondary button-small capability-edit-button"
                    aria-label={`Git-deploy van ${image.name} wijzigen`}
                    aria-expanded={deployEditing?.id === image.id}
                    onClick={() => props.onEditDeploy(deployEditing?.id === image.id ? null : image)}
                  >
                    Wijzigen
                  </button>
                </td>
                <td className="numeric">{image.projects}</td>
                <td className="options-column">
                  {confirmingDelete === image.id ? (
                    <div className="row-actions" role="group" aria-label={`Verwijderen van ${image.name} bevestigen`}>
                      <span>Zeker?</span>
                      <button
                        type="button"
                        className="button button-danger button-small"
                        disabled={deletingId === image.id}
                        onClick={() => props.onConfirmDelete(image)}
                      >
                        Ja, verwijder
                      </button>
                      <button type="button" className="button button-secondary button-small" onClick={() => props.onAskDelete(null)}>
                        Nee
                      </button>
                    </div>
                  ) : (
                    <button
                      type="button"
                      className="button button-danger button-small"
                      aria-label={`Verwijder ${image.name}`}
                      onClick={() => props.onAskDelete(image.id)}
                    >
                      Verwijder
                    </button>
                  )}
                </td>
              </tr>
            )}
          />
        )}
      </AsyncContent>

      {editingImage !== undefined && editing !== null && (
        <form
          className="card capability-edit"
          aria-label={`Rechten van ${editingImage.name}`}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            props.onSaveEdit();
          }}
        >
          <CapabilityCheckboxes
            legend={`Rechten (capabilities) van ${editingImage.name}`}
            selected={editing.capabilities}
            errors={props.editErrors}
            disabled={props.savingEdit}
            onChange={props.onEditChange}
          />
          <div className="form-actions">
            <button type="submit" className="button button-primary button-small" disabled={props.savingEdit}>
              {props.savingEdit ? 'Bezig met opslaan…' : 'Rechten opslaan'}
            </button>
            <button type="button" className="button button-secondary button-small" onClick={() => props.onEdit(null)}>
              Annuleren
            </button>
          </div>
        </form>
      )}

      {deployImage !== undefined && deployEditing !== null && (
        <DeployEditor
          imageName={deployImage.name}
          form={deployEditing.form}
          errors={props.deployErrors}
          saving={props.savingDeploy}
          onChange={props.onDeployChange}
          onSave={props.onSaveDeploy}
          onCancel={() => props.onEditDeploy(null)}
        />
      )}

      <form className="card image-form" onSubmit={submit} noValidate aria-labelledby={`${ids}-form-heading`}>
        <h2 id={`${ids}-form-heading`}>Image-optie toevoegen</h2>
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-name`}>
            Naam
          </label>
          <input
            id={`${ids}-name`}
            type="text"
            name="name"
            placeholder="bijv. PHP 8.3 met Apache"
            value={form.name}
            aria-invalid={fieldErrors.name !== undefined}
            aria-describedby={fieldErrors.name ? `${ids}-name-error` : undefined}
            onChange={(event) => props.onFormChange({ ...form, name: event.target.value })}
          />
          {fieldError('name')}
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-image`}>
            Image
          </label>
          <input
            id={`${ids}-image`}
            type="text"
            name="image"
            placeholder="registry.example:5000/devplein/php:8.3"
            spellCheck={false}
            autoCapitalize="off"
            value={form.image}
            aria-invalid={fieldErrors.image !== undefined}
            aria-describedby={fieldErrors.image ? `${ids}-image-error` : undefined}
            onChange={(event) => props.onFormChange({ ...form, image: event.target.value })}
          />
          {fieldError('image')}
        </div>
        <div className="image-flags">
          <label className="checkbox-field">
            <input type="checkbox" name="ssh" checked={form.ssh} onChange={(event) => props.onFormChange({ ...form, ssh: event.target.checked })} />
            SSH-toegang
          </label>
          <label className="checkbox-field">
            <input
              type="checkbox"
              name="wordpress"
              checked={form.wordpress}
              onChange={(event) => props.onFormChange({ ...form, wordpress: event.target.checked })}
            />
            WordPress
          </label>
          {fieldError('ssh')}
          {fieldError('wordpress')}
        </div>
        <div className="image-capabilities">
          <CapabilityCheckboxes
            legend="Rechten (capabilities)"
            selected={form.capabilities}
            errors={fieldErrors.capabilities}
            onChange={(capabilities) => props.onFormChange({ ...form, capabilities })}
          />
        </div>
        {props.formError !== null && (
          <p className="field-error" role="alert">
            {props.formError}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={props.saving}>
            {props.saving ? 'Bezig met opslaan…' : 'Toevoegen'}
          </button>
        </div>
      </form>
    </div>
  );
}

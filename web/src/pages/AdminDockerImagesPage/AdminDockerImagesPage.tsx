import { useState } from 'react';
import { useSWRConfig } from 'swr';
import { ApiError, type FieldErrors } from '../../api/client.ts';
import {
  REQUEST_FORM_IMAGES_KEY,
  createDockerImage,
  deleteDockerImage,
  deployFormOf,
  updateDockerImageCapabilities,
  updateDockerImageDeploy,
  useAdminDockerImages,
  type AdminDockerImage,
  type DeployForm,
  type DockerImageInput,
} from '../../api/queries/adminDockers.ts';
import { failureMessage } from '../../api/queries/dockers.ts';
import { DEFAULT_CAPABILITIES } from '@devplein/contract/validation/containerCapabilities';
import { AdminDockerImagesPageView } from './AdminDockerImagesPageView.tsx';

/** A new option starts with the set every container had before this setting: the admin narrows it. */
const EMPTY_FORM: DockerImageInput = { name: '', image: '', ssh: false, wordpress: false, capabilities: [...DEFAULT_CAPABILITIES] };

/**
 * /admin/dockers/images: admins keep the list of image options. Every change also refreshes the
 * request form's options (GET /api/dockers) in this tab.
 */
export function AdminDockerImagesPage() {
  const { data, error, mutate } = useAdminDockerImages();
  const { mutate: mutateKey } = useSWRConfig();
  const [confirmingDelete, setConfirmingDelete] = useState<number | null>(null);
  const [deletingId, setDeletingId] = useState<number | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [form, setForm] = useState<DockerImageInput>(EMPTY_FORM);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [editing, setEditing] = useState<{ id: number; capabilities: string[] } | null>(null);
  const [editErrors, setEditErrors] = useState<string[]>([]);
  const [savingEdit, setSavingEdit] = useState(false);
  const [deployEditing, setDeployEditing] = useState<{ id: number; form: DeployForm } | null>(null);
  const [deployErrors, setDeployErrors] = useState<FieldErrors>({});
  const [savingDeploy, setSavingDeploy] = useState(false);

  const saveDeploy = async () => {
    if (!deployEditing) return;
    const image = data?.find((item) => item.id === deployEditing.id);
    setSavingDeploy(true);
    setDeployErrors({});
    setMessage(null);
    try {
      const updated = await updateDockerImageDeploy(deployEditing.id, deployEditing.form);
      await mutate((current) => current?.map((item) => (item.id === updated.id ? updated : item)), { revalidate: false });
      setDeployEditing(null);
      setMessage({
        ok: true,
        text:
          updated.deploy.webRoot === null
            ? `${updated.name} biedt geen git-deploy meer aan.`
            : `De git-deploy van ${updated.name} is opgeslagen. Hij geldt vanaf de volgende keer dat een project publiceert.`,
      });
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 422 && Object.keys(failure.fieldErrors).length > 0) {
        setDeployErrors(failure.fieldErrors);
      } else {
        setMessage({ ok: false, text: `${image?.name ?? 'Image-optie'}: ${failureMessage(failure, 'Opslaan lukte niet. Probeer het nog eens.')}` });
      }
    } finally {
      setSavingDeploy(false);
    }
  };

  const saveEdit = async () => {
    if (!editing) return;
    const image = data?.find((item) => item.id === editing.id);
    setSavingEdit(true);
    setEditErrors([]);
    setMessage(null);
    try {
      const updated = await updateDockerImageCapabilities(editing.id, editing.capabilities);
      await mutate((current) => current?.map((item) => (item.id === updated.id ? updated : item)), { revalidate: false });
      setEditing(null);
      setMessage({ ok: true, text: `De rechten van ${updated.name} zijn opgeslagen. Ze gelden voor containers die vanaf nu gemaakt worden.` });
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 422 && Object.keys(failure.fieldErrors).length > 0) {
        setEditErrors(Object.values(failure.fieldErrors).flat());
      } else {
        setMessage({ ok: false, text: `${image?.name ?? 'Image-optie'}: ${failureMessage(failure, 'Opslaan lukte niet. Probeer het nog eens.')}` });
      }
    } finally {
      setSavingEdit(false);
    }
  };

  const remove = async (image: AdminDockerImage) => {
    setDeletingId(image.id);
    setMessage(null);
    try {
      await deleteDockerImage(image.id);
      await mutate((current) => current?.filter((item) => item.id !== image.id), { revalidate: false });
      void mutateKey(REQUEST_FORM_IMAGES_KEY);
      setMessage({ ok: true, text: `${image.name} is verwijderd.` });
    } catch (failure) {
      setMessage({ ok: false, text: `${image.name}: ${failureMessage(failure, 'Verwijderen lukte niet. Probeer het nog eens.')}` });
    } finally {
      setDeletingId(null);
      setConfirmingDelete(null);
    }
  };

  const submit = async () => {
    setSaving(true);
    setFieldErrors({});
    setFormError(null);
    setMessage(null);
    try {
      const created = await createDockerImage({ ...form, name: form.name.trim(), image: form.image.trim() });
      await mutate((current) => [...(current ?? []), created], { revalidate: false });
      void mutateKey(REQUEST_FORM_IMAGES_KEY);
      setForm(EMPTY_FORM);
      setMessage({ ok: true, text: `${created.name} is toegevoegd.` });
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 422 && Object.keys(failure.fieldErrors).length > 0) {
        setFieldErrors(failure.fieldErrors);
      } else {
        setFormError(failureMessage(failure, 'Opslaan lukte niet. Probeer het nog eens.'));
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <AdminDockerImagesPageView
      images={data}
      loadFailed={error !== undefined && data === undefined}
      confirmingDelete={confirmingDelete}
      deletingId={deletingId}
      message={message}
      onAskDelete={(id) => {
        setConfirmingDelete(id);
        setMessage(null);
      }}
      onConfirmDelete={(image) => void remove(image)}
      form={form}
      fieldErrors={fieldErrors}
      formError={formError}
      saving={saving}
      onFormChange={(next) => {
        setForm(next);
        setFormError(null);
      }}
      onSubmit={() => void submit()}
      editing={editing}
      editErrors={editErrors}
      savingEdit={savingEdit}
      onEdit={(image) => {
        setEditing(image ? { id: image.id, capabilities: [...image.capabilities] } : null);
        setEditErrors([]);
        setMessage(null);
      }}
      onEditChange={(capabilities) => setEditing((current) => (current ? { ...current, capabilities } : current))}
      onSaveEdit={() => void saveEdit()}
      deployEditing={deployEditing}
      deployErrors={deployErrors}
      savingDeploy={savingDeploy}
      onEditDeploy={(image) => {
        setDeployEditing(image ? { id: image.id, form: deployFormOf(image.deploy) } : null);
        setDeployErrors({});
        setMessage(null);
      }}
      onDeployChange={(form) => setDeployEditing((current) => (current ? { ...current, form } : current))}
      onSaveDeploy={() => void saveDeploy()}
    />
  );
}

import { useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { addSshKey, deleteSshKey, useSshKeys } from '../../api/queries/sshKeys.ts';
import {
  DUPLICATE_SSH_KEY_MESSAGE,
  INVALID_SSH_KEY_MESSAGE,
  isValidSshKeyFormat,
  sshKeyNameFromText,
} from '@devplein/contract/validation/sshKeyFormat';
import { SshKeysSectionView } from './SshKeysSectionView.tsx';
import { SSH_KEY_NAME_REQUIRED } from '@devplein/contract/messages';

/**
 * The signed-in developer's SSH keys (spec §2 Profile, §5, §8). The profile page shows it only on
 * one's own profile and only for developers; the server refuses everyone else anyway.
 */
export function SshKeysSection() {
  const { keys, error, mutate } = useSshKeys();
  const [keyText, setKeyText] = useState('');
  const [name, setName] = useState('');
  // Once the student types a name, pasting another key no longer overwrites it.
  const [nameEdited, setNameEdited] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);
  const [confirmingId, setConfirmingId] = useState<number | null>(null);
  const [deletingId, setDeletingId] = useState<number | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const keyValid = isValidSshKeyFormat(keyText);
  const canSave = keyValid && name.trim().length > 0;

  const clearForm = () => {
    setKeyText('');
    setName('');
    setNameEdited(false);
  };

  const changeKeyText = (text: string) => {
    setKeyText(text);
    setSaved(false);
    const valid = isValidSshKeyFormat(text);
    // Only a key has a comment; the third word of anything else (a private key header) is no name.
    if (!nameEdited) setName(valid ? sshKeyNameFromText(text) : '');
    setFormError(text.trim() === '' || valid ? null : INVALID_SSH_KEY_MESSAGE);
  };

  const submit = async () => {
    if (!keyValid) {
      setFormError(INVALID_SSH_KEY_MESSAGE);
      return;
    }
    if (name.trim() === '') {
      setFormError(SSH_KEY_NAME_REQUIRED);
      return;
    }
    setSaving(true);
    setFormError(null);
    try {
      const updated = await addSshKey({ name: name.trim(), sshKey: keyText.trim() });
      await mutate(updated, { revalidate: false });
      clearForm();
      setSaved(true);
    } catch (failure) {
      setFormError(saveFailureMessage(failure));
      // Spec §8: on the duplicate answer the form is cleared.
      if (isDuplicate(failure)) clearForm();
    } finally {
      setSaving(false);
    }
  };

  const remove = async (id: number) => {
    setDeletingId(id);
    setDeleteError(null);
    try {
      await mutate(await deleteSshKey(id), { revalidate: false });
      setConfirmingId(null);
    } catch {
      setDeleteError('Verwijderen is niet gelukt. Probeer het later opnieuw.');
      await mutate();
    } finally {
      setDeletingId(null);
    }
  };

  return (
    <SshKeysSectionView
      keys={keys}
      loadFailed={error !== undefined && keys === undefined}
      keyText={keyText}
      privateKeyPasted={/PRIVATE KEY/.test(keyText)}
      name={name}
      formError={formError}
      saved={saved}
      canSave={canSave}
      saving={saving}
      confirmingId={confirmingId}
      deletingId={deletingId}
      deleteError={deleteError}
      onKeyTextChange={changeKeyText}
      onNameChange={(value) => {
        setName(value);
        setNameEdited(true);
        setSaved(false);
      }}
      onSubmit={() => void submit()}
      onAskDelete={(id) => {
        setConfirmingId(id);
        setDeleteError(null);
      }}
      onDelete={(id) => void remove(id)}
    />
  );
}

const isDuplicate = (failure: unknown): boolean =>
  failure instanceof ApiError &&
  failure.status === 422 &&
  (failure.fieldErrors.sshKey?.includes(DUPLICATE_SSH_KEY_MESSAGE) ?? false);

/** What the form says when the server refuses: its own field message (Dutch) or a general line. */
function saveFailureMessage(failure: unknown): string {
  if (isDuplicate(failure)) return DUPLICATE_SSH_KEY_MESSAGE;
  if (failure instanceof ApiError && failure.status === 422) {
    return failure.fieldErrors.sshKey?.[0] ?? failure.fieldErrors.name?.[0] ?? failure.message;
  }
  return 'Opslaan is niet gelukt. Probeer het later opnieuw.';
}

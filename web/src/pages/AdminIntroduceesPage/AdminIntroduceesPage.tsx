import { useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { createIntroducee, deleteIntroducee, useIntroducees } from '../../api/queries/introducees.ts';
import { introduceeNameProblems } from '@devplein/contract/validation/licensesAndIntroducees';
import { AdminIntroduceesPageView } from './AdminIntroduceesPageView.tsx';

/** /admin/hangers: introducees ('meelopers') with their site domain and git account (spec §2 "Meelopers"). */
export function AdminIntroduceesPage() {
  const { data, error, isLoading, mutate } = useIntroducees();
  const [name, setName] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const [shownPasswords, setShownPasswords] = useState<ReadonlySet<number>>(new Set());
  const [confirmingId, setConfirmingId] = useState<number | null>(null);
  const [deletingId, setDeletingId] = useState<number | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const problems = introduceeNameProblems(name);

  const create = async () => {
    if (problems.length > 0) {
      setFormError(problems[0] ?? null);
      return;
    }
    setCreating(true);
    setFormError(null);
    try {
      const list = await createIntroducee(name);
      await mutate(list, { revalidate: false });
      setCreated(name);
      setName('');
    } catch (failure) {
      setFormError(
        failure instanceof ApiError && failure.status === 422
          ? (failure.fieldErrors.name?.[0] ?? failure.message)
          : 'Aanmaken is niet gelukt. Probeer het later opnieuw.',
      );
    } finally {
      setCreating(false);
    }
  };

  const remove = async (id: number) => {
    setDeletingId(id);
    setDeleteError(null);
    try {
      await mutate(await deleteIntroducee(id), { revalidate: false });
      setConfirmingId(null);
      setCreated(null);
    } catch {
      setDeleteError('Verwijderen is niet gelukt. Probeer het later opnieuw.');
      await mutate();
    } finally {
      setDeletingId(null);
    }
  };

  return (
    <AdminIntroduceesPageView
      introducees={data}
      loading={isLoading}
      failed={error !== undefined && data === undefined}
      name={name}
      nameProblem={name === '' ? null : (problems[0] ?? null)}
      formError={formError}
      creating={creating}
      created={created}
      shownPasswords={shownPasswords}
      confirmingId={confirmingId}
      deletingId={deletingId}
      deleteError={deleteError}
      // Host and git user names are lowercase: typing capitals or spaces is forgiven, not refused.
      onNameChange={(value) => {
        setName(value.toLowerCase().replace(/\s+/g, ''));
        setFormError(null);
        setCreated(null);
      }}
      onCreate={() => void create()}
      onTogglePassword={(id) =>
        setShownPasswords((ids) => {
          const next = new Set(ids);
          if (next.has(id)) next.delete(id);
          else next.add(id);
          return next;
        })
      }
      onAskDelete={(id) => {
        setConfirmingId(id);
        setDeleteError(null);
      }}
      onDelete={(id) => void remove(id)}
    />
  );
}

import { useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { dbAdminSignon, dbAdminUrl, dbHost, dbPort } from '../../api/meta.ts';
import { createDatabase, dropDatabase, useDatabases } from '../../api/queries/databases.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { canSeeDeveloperTools } from '../../layout/roles.ts';
import { databaseNameProblem, normalizeDatabaseName } from '@devplein/contract/validation/databaseName';
import { DatabasesPageView } from './DatabasesPageView.tsx';
import { DeveloperOnlyNotice } from './DeveloperOnlyNotice.tsx';
import { serverMessage } from './serverMessage.ts';

/**
 * /databases: the signed-in developer's MySQL/MariaDB databases (spec §2, §5, §8). Users who are
 * not developers get a notice and no request is made (the server would answer 403).
 */
export function DatabasesPage() {
  const { user } = useCurrentUser();
  if (!canSeeDeveloperTools(user)) return <DeveloperOnlyNotice />;
  return <DeveloperDatabases userId={user?.id ?? 0} />;
}

function DeveloperDatabases({ userId }: { userId: number }) {
  const { databases, error, mutate } = useDatabases();
  const [name, setName] = useState('');
  const [createErrors, setCreateErrors] = useState<readonly string[]>([]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const [shownPasswords, setShownPasswords] = useState<ReadonlySet<number>>(new Set());
  const [confirmingId, setConfirmingId] = useState<number | null>(null);
  const [droppingId, setDroppingId] = useState<number | null>(null);
  const [dropError, setDropError] = useState<string | null>(null);

  const existingNames = (databases ?? []).map((database) => database.name);
  const nameProblem = databaseNameProblem(name, existingNames);

  const create = async () => {
    if (nameProblem !== null) return;
    setCreating(true);
    setCreateErrors([]);
    try {
      const list = await createDatabase(name);
      await mutate(list, { revalidate: false });
      setCreated(list.find((database) => database.name.endsWith(`_${name}`))?.name ?? name);
      setName('');
    } catch (failure) {
      setCreateErrors(createFailureMessages(failure));
      // Someone (another tab) may have changed the list: the check mark should compare with the truth.
      await mutate().catch(() => undefined);
    } finally {
      setCreating(false);
    }
  };

  const drop = async (id: number) => {
    setDroppingId(id);
    setDropError(null);
    try {
      await mutate(await dropDatabase(id), { revalidate: false });
      setConfirmingId(null);
      setCreated(null);
    } catch (failure) {
      setDropError(serverMessage(failure, 'Verwijderen is niet gelukt. Probeer het later opnieuw.'));
      await mutate().catch(() => undefined);
    } finally {
      setDroppingId(null);
    }
  };

  return (
    <DatabasesPageView
      databases={databases}
      loadError={error !== undefined ? serverMessage(error, 'Je databases konden niet worden geladen. Probeer het later opnieuw.') : null}
      // A student's databases are all on one dev server (with their VPN configuration).
      host={databases?.[0]?.host ?? dbHost()}
      port={databases?.[0]?.port ?? dbPort()}
      adminUrl={dbAdminUrl()}
      adminSignon={dbAdminSignon()}
      namePrefix={`u${userId}_`}
      name={name}
      nameProblem={nameProblem}
      createErrors={createErrors}
      creating={creating}
      created={created}
      shownPasswords={shownPasswords}
      confirmingId={confirmingId}
      droppingId={droppingId}
      dropError={dropError}
      onNameChange={(typed) => {
        setName(normalizeDatabaseName(typed));
        setCreateErrors([]);
        setCreated(null);
      }}
      onCreate={() => void create()}
      onTogglePassword={(id) =>
        setShownPasswords((current) => {
          const next = new Set(current);
          if (next.has(id)) next.delete(id);
          else next.add(id);
          return next;
        })
      }
      onAskDrop={(id) => {
        setConfirmingId(id);
        setDropError(null);
      }}
      onDrop={(id) => void drop(id)}
    />
  );
}

/** Spec §8: the errors for db of a 422; the server's message otherwise (503, 501, ...); a general line without one. */
function createFailureMessages(failure: unknown): string[] {
  if (failure instanceof ApiError && failure.status === 422) {
    const messages = failure.fieldErrors.db ?? [];
    return messages.length > 0 ? messages : [failure.message];
  }
  return [serverMessage(failure, 'Aanmaken is niet gelukt. Probeer het later opnieuw.')];
}

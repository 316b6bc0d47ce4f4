import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import {
  changeUserState,
  cohortsOf,
  deleteUser,
  filterUsers,
  indexUsers,
  useAdminUsers,
  type AdminUser,
  type UserAction,
  type UserFilter,
} from '../../api/queries/adminUsers.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { AdminUsersPageView, type DeleteState } from './AdminUsersPageView.tsx';
import '../../styles/admin-levels.css';
import '../../styles/admin-users.css';

const failureText = (error: unknown): string =>
  error instanceof ApiError ? error.message : 'Er ging iets mis. Probeer het opnieuw.';

/**
 * /admin/users (spec §2 Users): every user loaded once, filtered in the browser by name, cohort
 * and the 'Niet geactiveerd' checkbox (on by default). Activeer / Disable per row, and delete
 * after a confirmation that says what happens to projects, databases, VPN config and SSH keys.
 */
export function AdminUsersPage() {
  const { user: me } = useCurrentUser();
  const { users, error, isLoading, mutate } = useAdminUsers();
  const [filter, setFilter] = useState<UserFilter>({ name: '', cohort: '', notActivated: true });
  // Typing stays responsive; the table follows a moment later when the list is long.
  const deferredFilter = useDeferredValue(filter);
  const indexed = useMemo(() => indexUsers(users ?? []), [users]);
  const cohorts = useMemo(() => cohortsOf(users ?? []), [users]);
  const rows = useMemo(() => filterUsers(indexed, deferredFilter), [indexed, deferredFilter]);

  const [busyId, setBusyId] = useState<number | null>(null);
  const [status, setStatus] = useState<{ text: string; failed: boolean } | null>(null);
  const [deleting, setDeleting] = useState<DeleteState | null>(null);

  const replaceUser = useCallback(
    (updated: AdminUser) =>
      mutate((current) => current?.map((user) => (user.id === updated.id ? updated : user)), { revalidate: false }),
    [mutate],
  );

  const onAction = useCallback(
    async (user: AdminUser, action: UserAction) => {
      setBusyId(user.id);
      setStatus(null);
      try {
        await replaceUser(await changeUserState(user.id, action));
        setStatus({
          text: action === 'verify' ? `${user.name} is geactiveerd.` : `${user.name} is uitgeschakeld en overal uitgelogd.`,
          failed: false,
        });
      } catch (failure) {
        setStatus({ text: `${user.name}: ${failureText(failure)}`, failed: true });
      } finally {
        setBusyId(null);
      }
    },
    [replaceUser],
  );

  const onConfirmDelete = useCallback(async () => {
    if (deleting === null) return;
    const { user } = deleting;
    setDeleting({ user, busy: true, error: null });
    try {
      await deleteUser(user.id);
      await mutate((current) => current?.filter((other) => other.id !== user.id), { revalidate: false });
      setDeleting(null);
      setStatus({ text: `${user.name} is verwijderd.`, failed: false });
    } catch (failure) {
      // A 409 names what still exists on the dev server: show it as the server says it.
      setDeleting({ user, busy: false, error: failureText(failure) });
    }
  }, [deleting, mutate]);

  return (
    <AdminUsersPageView
      users={users}
      failed={error !== undefined}
      loading={isLoading}
      rows={rows}
      cohorts={cohorts}
      filter={filter}
      onFilterChange={setFilter}
      currentUserId={me?.id ?? null}
      busyId={busyId}
      status={status}
      onAction={(user, action) => void onAction(user, action)}
      deleting={deleting}
      onAskDelete={(user) => setDeleting(user === null ? null : { user, busy: false, error: null })}
      onConfirmDelete={() => void onConfirmDelete()}
    />
  );
}

import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import {
  changeUserState,
  cohortsOf,
  deleteUser,
  filterUsers,
  indexUsers,
  setDeveloper,
  useAdminUsers,
  type AdminUser,
  type UserAction,
  type UserFilter,
} from '../../api/queries/adminUsers.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { AdminUsersPageView, type DeleteState, type StatusMessage } from './AdminUsersPageView.tsx';
import '../../styles/admin-users.css';

const failureText = (error: unknown): string =>
  error instanceof ApiError ? error.message : 'Er ging iets mis. Probeer het opnieuw.';

/** What a revocation did on the dev servers when they all followed. */
const REVOKED = 'Databases, VPN en SSH-toegang zijn ingetrokken.';

/**
 * The status after an account change: what was done (and, when every dev server followed,
 * `whenComplete`), or what the dev servers have not done yet (a warning; they retry by themselves).
 */
const afterChange = (text: string, updated: AdminUser, whenComplete = ''): StatusMessage =>
  updated.access_not_done === null
    ? { text: whenComplete ? `${text} ${whenComplete}` : text, tone: 'ok' }
    : { text: `${text} ${updated.access_not_done}`, tone: 'warning' };

/**
 * /admin/users (spec §2 Users): every user loaded once, filtered in the browser by name, cohort
 * and the 'Niet geactiveerd' checkbox (on by default). Activeer / Disable and the developer flag
 * per row, and delete after a confirmation that says what happens to projects, databases, VPN
 * config and SSH keys. When a dev server has not followed a change yet, the status says what is
 * left (the server retries it) and the row shows it until it is done.
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
  const [status, setStatus] = useState<StatusMessage | null>(null);
  const [deleting, setDeleting] = useState<DeleteState | null>(null);

  const replaceUser = useCallback(
    (updated: AdminUser) =>
      mutate((current) => current?.map((user) => (user.id === updated.id ? updated : user)), { revalidate: false }),
    [mutate],
  );

  /** Runs one change of a user's account (busy row, status line), answering the updated user. */
  const change = useCallback(
    async (user: AdminUser, work: () => Promise<AdminUser>, text: string, whenComplete?: string) => {
      setBusyId(user.id);
      setStatus(null);
      try {
        const updated = await work();
        await replaceUser(updated);
        setStatus(afterChange(text, updated, whenComplete));
      } catch (failure) {
        setStatus({ text: `${user.name}: ${failureText(failure)}`, tone: 'error' });
      } finally {
        setBusyId(null);
      }
    },
    [replaceUser],
  );

  const onAction = useCallback(
    (user: AdminUser, action: UserAction) =>
      action === 'verify'
        ? change(user, () => changeUserState(user.id, action), `${user.name} is geactiveerd.`)
        : change(user, () => changeUserState(user.id, action), `${user.name} is uitgeschakeld en overal uitgelogd.`, REVOKED),
    [change],
  );

  const onDeveloper = useCallback(
    (user: AdminUser, developer: boolean) =>
      developer
        ? change(user, () => setDeveloper(user.id, true), `${user.name} is nu ontwikkelaar.`)
        : change(user, () => setDeveloper(user.id, false), `${user.name} is geen ontwikkelaar meer en is overal uitgelogd.`, REVOKED),
    [change],
  );

  const onConfirmDelete = useCallback(async () => {
    if (deleting === null) return;
    const { user } = deleting;
    setDeleting({ user, busy: true, error: null });
    try {
      const answer = await deleteUser(user.id);
      await mutate((current) => current?.filter((other) => other.id !== user.id), { revalidate: false });
      setDeleting(null);
      // A message: deleted, but a dev server still has something to do (it retries by itself).
      setStatus(answer ? { text: `${user.name}: ${answer.message}`, tone: 'warning' } : { text: `${user.name} is verwijderd.`, tone: 'ok' });
    } catch (failure) {
      // A 503 names what is still on which dev server (the user stays, disabled): show it as the server says it.
      await mutate();
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
      onDismissStatus={() => setStatus(null)}
      onAction={(user, action) => void onAction(user, action)}
      onDeveloper={(user, developer) => void onDeveloper(user, developer)}
      deleting={deleting}
      onAskDelete={(user) => setDeleting(user === null ? null : { user, busy: false, error: null })}
      onConfirmDelete={() => void onConfirmDelete()}
    />
  );
}

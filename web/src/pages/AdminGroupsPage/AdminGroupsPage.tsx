import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client.ts';
import { addGroupMember, createGroup, removeGroupMember, useGroupMembers, useGroups } from '../../api/queries/groups.ts';
import type { Member } from '../../api/queries/teams.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import type { PeopleMessage } from '../../components/MemberList.tsx';
import { AdminGroupsPageView } from './AdminGroupsPageView.tsx';
import '../../styles/teams-groups.css';

/**
 * /admin/groups (spec §2 Groups): groups searchable by cohort; the chosen group's members and a
 * member search to add (which moves a student out of their old group: a user has one group).
 * Beyond the spec: 'Nieuwe groep' makes a cohort (a school year starts with one), and a
 * remove icon takes a student out of the group (they then have no group).
 */
export function AdminGroupsPage() {
  const [params, setParams] = useSearchParams();
  const chosen = Number(params.get('group'));
  const groupId = Number.isInteger(chosen) && chosen > 0 ? chosen : null;
  const [search, setSearch] = useState('');
  const groups = useGroups(search);
  const allGroups = useGroups('');
  const members = useGroupMembers(groupId);
  const [message, setMessage] = useState<PeopleMessage | null>(null);
  const [busy, setBusy] = useState(false);
  const [createErrors, setCreateErrors] = useState<string[]>([]);
  const group = allGroups.groups?.find((candidate) => candidate.id === groupId) ?? null;

  async function change(action: () => Promise<Member[]>, success: string): Promise<void> {
    setBusy(true);
    try {
      await members.mutate(await action(), { revalidate: false });
      void groups.mutate();
      void allGroups.mutate();
      setMessage({ kind: 'ok', text: success });
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof ApiError ? error.message : 'Dat lukte niet. Probeer het nog eens.' });
    } finally {
      setBusy(false);
    }
  }

  function add(user: UserSearchHit): void {
    if (group === null) return;
    const from = user.group && user.group.id !== group.id ? ` (was ${user.group.cohort})` : '';
    void change(() => addGroupMember(group.id, user.id), `${user.name} zit nu in ${group.cohort}${from}.`);
  }

  function remove(member: Member): void {
    if (group === null) return;
    void change(() => removeGroupMember(group.id, member.id), `${member.name} is uit ${group.cohort} gehaald en heeft nu geen klas.`);
  }

  async function create(cohort: string): Promise<boolean> {
    setCreateErrors([]);
    try {
      const created = await createGroup(cohort);
      await Promise.all([groups.mutate(), allGroups.mutate()]);
      setParams({ group: String(created.id) });
      setMessage({ kind: 'ok', text: `Groep ${created.cohort} is gemaakt.` });
      return true;
    } catch (error) {
      setCreateErrors(error instanceof ApiError && error.status === 422 ? Object.values(error.fieldErrors).flat() : ['De groep kon niet worden gemaakt.']);
      return false;
    }
  }

  return (
    <AdminGroupsPageView
      search={search}
      onSearch={setSearch}
      groups={groups.groups}
      groupsFailed={groups.error !== undefined}
      group={group}
      groupId={groupId}
      groupsLoaded={allGroups.groups !== undefined}
      onChooseGroup={(id) => {
        setMessage(null);
        setParams({ group: String(id) });
      }}
      members={members.members}
      membersFailed={members.error !== undefined}
      busy={busy}
      message={message}
      onAdd={add}
      onRemove={remove}
      onCreate={create}
      createErrors={createErrors}
    />
  );
}

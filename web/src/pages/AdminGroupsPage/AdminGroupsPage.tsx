import { useState } from 'react';
import { addGroupMember, createGroup, removeGroupMember, useGroupMembers, useGroups } from '../../api/queries/groups.ts';
import type { Member } from '../../api/queries/teams.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { MembersPanel } from '../../components/MemberList.tsx';
import { PeopleAdminView } from '../../components/PeopleAdminView.tsx';
import { usePeopleAdmin } from '../../components/usePeopleAdmin.ts';
import '../../styles/teams-groups.css';

/**
 * /admin/groups (spec §2 Groups): groups searchable by cohort; the chosen group's members and a
 * member search to add (which moves a student out of their old group: a user has one group).
 * Beyond the spec: 'Nieuwe groep' makes a cohort (a school year starts with one), and a
 * remove icon takes a student out of the group (they then have no group).
 */
export function AdminGroupsPage() {
  const people = usePeopleAdmin('group');
  const groupId = people.chosenId;
  const [search, setSearch] = useState('');
  const groups = useGroups(search);
  const allGroups = useGroups('');
  const members = useGroupMembers(groupId);
  const group = allGroups.groups?.find((candidate) => candidate.id === groupId) ?? null;

  function change(action: () => Promise<Member[]>, success: string): void {
    void people.change(async () => {
      await members.mutate(await action(), { revalidate: false });
      void groups.mutate();
      void allGroups.mutate();
    }, () => success);
  }

  function add(user: UserSearchHit): void {
    if (group === null) return;
    const from = user.group && user.group.id !== group.id ? ` (was ${user.group.cohort})` : '';
    change(() => addGroupMember(group.id, user.id), `${user.name} zit nu in ${group.cohort}${from}.`);
  }

  function remove(member: Member): void {
    if (group === null) return;
    change(() => removeGroupMember(group.id, member.id), `${member.name} is uit ${group.cohort} gehaald en heeft nu geen klas.`);
  }

  return (
    <PeopleAdminView
      title="Groepen"
      lead="Kies een klas om de studenten te zien. Een student zit in één klas: toevoegen haalt de student uit de oude klas."
      search={{ value: search, onChange: setSearch, label: 'Zoek op klas', placeholder: 'bijv. SD23', maxLength: 50 }}
      choices={groups.groups?.map((candidate) => ({ id: candidate.id, label: candidate.cohort, memberCount: candidate.member_count }))}
      choicesFailed={groups.error !== undefined}
      choicesLabel="Groepen"
      loadingText="Groepen laden…"
      errorText="De groepen konden niet worden geladen. Probeer het later opnieuw."
      emptyText={<>Geen klas gevonden met ‘{search.trim()}’.</>}
      chosenId={groupId}
      onChoose={people.choose}
      newForm={{
        label: 'Nieuwe groep',
        placeholder: 'klas, bijv. SD24',
        maxLength: 20,
        submitText: 'Groep maken',
        errors: people.createErrors,
        onCreate: (cohort) =>
          people.create(async () => {
            const created = await createGroup(cohort);
            await Promise.all([groups.mutate(), allGroups.mutate()]);
            return { id: created.id, text: `Groep ${created.cohort} is gemaakt.` };
          }, 'De groep kon niet worden gemaakt.'),
      }}
      message={people.message}
      missing={groupId !== null && allGroups.groups !== undefined && group === null}
      missingText="Deze groep bestaat niet (meer). Kies een andere groep."
      panel={
        group && (
          <MembersPanel
            kind="group"
            title={group.cohort}
            searchLabel="Student toevoegen"
            chosenText="zit al in deze klas"
            onAdd={add}
            members={members.members}
            failed={members.error !== undefined}
            emptyText="Deze klas heeft nog geen studenten. Zoek hierboven een student om toe te voegen."
            removeLabel={(member) => `${member.name} uit ${group.cohort} halen`}
            onRemove={remove}
            busy={people.busy}
          />
        )
      }
    />
  );
}

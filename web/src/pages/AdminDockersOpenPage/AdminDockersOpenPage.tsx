import { useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { deleteProject, toggleProjectApproval, useAwaitingProjects, type Project } from '../../api/queries/projects.ts';
import { AdminDockersOpenPageView } from './AdminDockersOpenPageView.tsx';

/**
 * /admin/dockers/open 'Projecten ter goedkeuring': requests awaiting approval. A request decided
 * on here stays in the list with its new state until the page is left, so a wrong click can be
 * undone with the same button (it toggles, §4).
 */
export function AdminDockersOpenPage() {
  const { data, error, isLoading, mutate } = useAwaitingProjects();
  const [decided, setDecided] = useState<ReadonlyMap<number, Project>>(new Map());
  const [busyId, setBusyId] = useState<number | null>(null);

  const projects = data === undefined ? undefined : mergeDecided(data, decided);

  async function toggle(project: Project) {
    setBusyId(project.id);
    try {
      const { validated } = await toggleProjectApproval(project.id);
      setDecided((current) => new Map(current).set(project.id, { ...project, validated }));
    } catch (failure) {
      window.alert(failure instanceof ApiError ? failure.fieldMessages() || failure.message : 'Dat lukte niet. Probeer het nog eens.');
    } finally {
      setBusyId(null);
    }
  }

  async function remove(project: Project) {
    if (!window.confirm(`Wil je het project "${project.name}" verwijderen?`)) return;
    setBusyId(project.id);
    try {
      await deleteProject(project.id);
      setDecided((current) => {
        const next = new Map(current);
        next.delete(project.id);
        return next;
      });
      await mutate((current) => current?.filter((item) => item.id !== project.id), { revalidate: false });
    } catch (failure) {
      window.alert(failure instanceof ApiError ? failure.message : 'Verwijderen lukte niet. Probeer het nog eens.');
    } finally {
      setBusyId(null);
    }
  }

  async function saved(project: Project) {
    setDecided((current) => (current.has(project.id) ? new Map(current).set(project.id, project) : current));
    await mutate((current) => current?.map((item) => (item.id === project.id ? project : item)), { revalidate: false });
  }

  return (
    <AdminDockersOpenPageView
      projects={projects}
      failed={error !== undefined}
      loading={isLoading}
      busyId={busyId}
      onToggle={(project) => void toggle(project)}
      onDelete={(project) => void remove(project)}
      onSaved={(project) => void saved(project)}
    />
  );
}

/** The awaiting list plus the requests decided on during this visit, in their place. */
function mergeDecided(awaiting: Project[], decided: ReadonlyMap<number, Project>): Project[] {
  const listed = awaiting.map((project) => decided.get(project.id) ?? project);
  const gone = [...decided.values()].filter((project) => !awaiting.some((item) => item.id === project.id));
  return [...listed, ...gone].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
}

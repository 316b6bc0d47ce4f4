import { useState } from 'react';
import type { Project } from '../../api/queries/projects.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DockerRequestForm } from '../../components/DockerRequestForm.tsx';
import { OTHER_DOCKER_IMAGE } from '@devplein/contract/validation/projectRequest';
import '../../styles/projects.css';

export interface AdminDockersOpenPageViewProps {
  projects: Project[] | undefined;
  failed: boolean;
  loading: boolean;
  /** The request an action is running for (its buttons are disabled meanwhile). */
  busyId: number | null;
  onToggle: (project: Project) => void;
  onDelete: (project: Project) => void;
  onSaved: (project: Project) => void;
}

/** 'Projecten ter goedkeuring' (spec §2): one card per request with its actions. */
export function AdminDockersOpenPageView({ projects, failed, loading, busyId, onToggle, onDelete, onSaved }: AdminDockersOpenPageViewProps) {
  return (
    <div className="page admin-page">
      <header className="admin-page-header">
        <h1>Projecten ter goedkeuring</h1>
      </header>
      <AsyncContent
        data={projects}
        failed={failed}
        loading={loading}
        errorText="De aanvragen konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Aanvragen laden…"
        empty="Er zijn op dit moment geen aanvragen"
        emptyTestId="no-requests"
      >
        {(projects) => (
          <ul className="project-list" aria-label="Aanvragen">
            {projects.map((project) => (
              <ProjectRequestCard
                key={project.id}
                project={project}
                busy={busyId === project.id}
                onToggle={() => onToggle(project)}
                onDelete={() => onDelete(project)}
                onSaved={onSaved}
              />
            ))}
          </ul>
        )}
      </AsyncContent>
    </div>
  );
}

function stateOf(project: Project): { text: string; className: string } {
  if (project.validated === true) return { text: 'Goedgekeurd', className: 'project-state approved' };
  if (project.validated === false) return { text: 'Afgekeurd', className: 'project-state rejected' };
  return { text: 'Wacht op goedkeuring', className: 'project-state' };
}

function ProjectRequestCard({
  project,
  busy,
  onToggle,
  onDelete,
  onSaved,
}: {
  project: Project;
  busy: boolean;
  onToggle: () => void;
  onDelete: () => void;
  onSaved: (project: Project) => void;
}) {
  const [editing, setEditing] = useState(false);
  // §9: image option 1 is always in edit mode and has no approve button: a teacher picks an image first.
  const special = project.docker_id === OTHER_DOCKER_IMAGE;
  const formOpen = special || editing;
  const state = stateOf(project);

  return (
    <li className="card project-card" data-testid="project-request" data-project={project.name}>
      <div className="project-card-header">
        <h2>{project.name}</h2>
        <span className={state.className}>{state.text}</span>
      </div>
      <dl className="project-facts">
        <dt>Image</dt>
        <dd>{project.docker ?? 'geen image'}</dd>
        <dt>Domein</dt>
        <dd>
          <a href={`http://${project.domain}`} target="_blank" rel="noreferrer">
            {project.domain}
          </a>
        </dd>
        <dt>Teamleden</dt>
        <dd>
          {project.users.length === 0 ? (
            <span className="muted">geen teamleden</span>
          ) : (
            <ul className="project-members">
              {project.users.map((user) => (
                <li key={user.id}>
                  {user.name} <span className="muted">({user.group?.cohort ?? 'geen klas'})</span>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Git</dt>
        <dd data-testid="project-git">
          {project.repro ?? 'Nog geen git repository'}
          {project.deploy_token !== null && (
            <span className="project-git-token" data-testid="project-git-token">
              Deployt met een opgeslagen token van {project.deploy_token.stored_by.name} (alleen voor dit adres).
            </span>
          )}
        </dd>
      </dl>
      <p className="project-description">{project.description}</p>
      <div className="project-actions">
        {!special && (
          <button type="button" className="button button-secondary button-small" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Bewerk
          </button>
        )}
        {!special && (
          <button
            type="button"
            className={project.validated === true ? 'button button-secondary button-small' : 'button button-primary button-small'}
            disabled={busy}
            onClick={onToggle}
          >
            {project.validated === true ? 'Keur af' : 'Keur goed'}
          </button>
        )}
        <button type="button" className="button button-danger button-small" disabled={busy} onClick={onDelete}>
          Verwijder
        </button>
      </div>
      {special && <p className="field-hint">Deze aanvraag heeft nog geen image: kies er een in het formulier en sla op, dan kun je hem goedkeuren.</p>}
      {formOpen && (
        <DockerRequestForm
          project={project}
          headingLevel={2}
          onSaved={(saved) => {
            setEditing(false);
            onSaved(saved);
          }}
          onCancel={special ? undefined : () => setEditing(false)}
        />
      )}
    </li>
  );
}

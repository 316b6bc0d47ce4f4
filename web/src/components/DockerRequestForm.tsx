import { useState } from 'react';
import { ApiError } from '../api/client.ts';
import {
  createProjectRequest,
  siteDomain as readSiteDomain,
  siteDomains as readSiteDomains,
  updateProjectRequest,
  useDockerImages,
  type Project,
  type ProjectRequestBody,
} from '../api/queries/projects.ts';
import { useCurrentUser } from '../api/queries/user.ts';
import { useDeploySettings } from '../api/queries/deploys.ts';
import { isAdmin } from '../layout/roles.ts';
import { DockerRequestFormView } from './DockerRequestFormView.tsx';

/** Spec §8: a refused request shows the response's field errors, one per line, in an alert. */
function alertRefusal(error: unknown): void {
  if (error instanceof ApiError && error.status === 422) {
    window.alert(error.fieldMessages() || error.message);
    return;
  }
  console.error('Docker aanvraag opslaan mislukt', error);
  window.alert(error instanceof Error ? `Opslaan lukte niet: ${error.message}` : 'Opslaan lukte niet. Probeer het nog eens.');
}

/**
 * The docker request form (spec §5) with its data and saving: used by /dockers/create (new or
 * edit) and inline on the approvals page. `onSaved` gets the stored project.
 */
export function DockerRequestForm({
  project,
  onSaved,
  onCancel,
  headingLevel,
}: {
  project?: Project;
  onSaved: (project: Project) => void;
  onCancel?: () => void;
  headingLevel?: 1 | 2;
}) {
  const { user } = useCurrentUser();
  const images = useDockerImages();
  // While the school's git hosts load (or when they cannot be loaded) the form checks only the address's shape.
  const gitSettings = useDeploySettings();
  const [saving, setSaving] = useState(false);

  if (user === null) return null;
  if (images.error !== undefined) {
    return (
      <p className="card error-text" role="alert">
        De lijst met images kon niet worden geladen. Herlaad de pagina.
      </p>
    );
  }
  if (images.data === undefined) {
    return (
      <p className="page-message" role="status">
        Formulier laden…
      </p>
    );
  }

  const admin = isAdmin(user);
  const member = project?.users.some((projectUser) => projectUser.id === user.id) ?? true;
  // An admin editing someone's request is not added to it; everybody else is always a member (§5).
  const keepCurrentUser = !(admin && project !== undefined && !member);

  async function save(body: ProjectRequestBody) {
    setSaving(true);
    try {
      const saved = project === undefined ? await createProjectRequest(body) : await updateProjectRequest(project.id, body);
      setSaving(false);
      onSaved(saved);
    } catch (error) {
      setSaving(false);
      alertRefusal(error);
    }
  }

  return (
    <DockerRequestFormView
      key={project?.id ?? 'new'}
      project={project}
      images={images.data}
      siteDomain={readSiteDomain()}
      siteDomains={readSiteDomains()}
      currentUser={{ id: user.id, name: user.name }}
      keepCurrentUser={keepCurrentUser}
      searchAll={admin && project !== undefined}
      saving={saving}
      onSubmit={(body) => void save(body)}
      onCancel={onCancel}
      headingLevel={headingLevel}
      gitPolicy={gitSettings.data}
    />
  );
}

import { useId, useMemo, useState, type FormEvent } from 'react';
import type { DockerImageOption, Project, ProjectRequestBody } from '../api/queries/projects.ts';
import type { UserSearchHit } from '../api/queries/userSearch.ts';
import {
  NO_DOCKER_IMAGE,
  PROJECT_DESCRIPTION_MAX,
  PROJECT_DESCRIPTION_MIN,
  PROJECT_DOMAIN_MAX,
  PROJECT_NAME_MAX,
  PROJECT_REPRO_MAX,
  descriptionCounterIsGreen,
  domainForName,
  filterProjectName,
  projectRequestProblems,
} from '@devplein/contract/validation/projectRequest';
import type { RepositoryAddressPolicy } from '@devplein/contract/validation/repositoryAddress';
import { UserSearch } from './UserSearch.tsx';
import { BranchField } from './BranchField.tsx';
import { FieldError } from './FieldError.tsx';
import '../styles/projects.css';

export interface FormMember {
  id: number;
  name: string;
}

export interface DockerRequestFormViewProps {
  /** The request being edited; undefined for a new one. */
  project?: Project;
  images: DockerImageOption[];
  /** The domain the name fills in (where new projects go). */
  siteDomain: string;
  /** Every dev server's site domain a domain may lie under (default: siteDomain only). */
  siteDomains?: readonly string[];
  /** Shown as a member and never removable when `keepCurrentUser` (§5: the current user is always a member). */
  currentUser: FormMember;
  keepCurrentUser: boolean;
  /** Members search also finds inactive accounts (admins editing: `?all=true`). */
  searchAll: boolean;
  saving: boolean;
  onSubmit: (body: ProjectRequestBody) => void;
  onCancel?: () => void;
  /** The heading level: the page's h1, or an h2 inside the approvals list. */
  headingLevel?: 1 | 2;
  /**
   * The school's git hosts (GET /api/deploy/settings): the repository address is checked against
   * them at once. Undefined while they load or when they could not be loaded: only its shape is checked.
   */
  gitPolicy?: RepositoryAddressPolicy;
}

/** The branch the server stored for the project, when its JSON says (older servers do not: undefined). */
function storedBranch(project: Project | undefined): string | null | undefined {
  const branch = (project as { branch?: unknown } | undefined)?.branch;
  return typeof branch === 'string' || branch === null ? branch : undefined;
}

function initialMembers(project: Project | undefined, currentUser: FormMember, keepCurrentUser: boolean): FormMember[] {
  const members = (project?.users ?? []).map((user) => ({ id: user.id, name: user.name }));
  if (keepCurrentUser && !members.some((member) => member.id === currentUser.id)) return [currentUser, ...members];
  return members;
}

/**
 * The docker request form of spec §5 ('Docker aanvragen' / 'Docker bewerken'): only a-z and
 * hyphens can be typed in the name; the domain follows the name; the submit button stays
 * disabled until every rule of the shared schema holds.
 */
export function DockerRequestFormView({
  project,
  images,
  siteDomain,
  siteDomains = [siteDomain],
  currentUser,
  keepCurrentUser,
  searchAll,
  saving,
  onSubmit,
  onCancel,
  headingLevel = 1,
  gitPolicy,
}: DockerRequestFormViewProps) {
  const formId = useId();
  const [name, setName] = useState(project?.name ?? '');
  const [domain, setDomain] = useState(project?.domain ?? '');
  const [dockerId, setDockerId] = useState(project?.docker_id ?? NO_DOCKER_IMAGE);
  const [description, setDescription] = useState(project?.description ?? '');
  const [visible, setVisible] = useState(project === undefined ? true : project.visible === '1');
  const [repro, setRepro] = useState(project?.repro ?? '');
  const knownBranch = storedBranch(project);
  const [branch, setBranch] = useState(knownBranch ?? '');
  const [members, setMembers] = useState<FormMember[]>(() => initialMembers(project, currentUser, keepCurrentUser));
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set(project === undefined ? [] : ['name', 'domain', 'docker_id', 'description', 'repro']));

  const body: ProjectRequestBody = {
    name,
    domain,
    docker_id: dockerId,
    description,
    visible: visible ? '1' : '0',
    users: members.map((member) => member.id),
    repro,
    // A new request always says its branch (empty: the default); an edit only when it is known or a new one is typed.
    ...(project === undefined || knownBranch !== undefined || branch.trim() !== '' ? { branch } : {}),
    end_date: project?.end_date ?? '',
  };
  const problems = projectRequestProblems(body, siteDomains, gitPolicy);
  const valid = Object.keys(problems).length === 0;
  const touch = (field: string) => setTouched((current) => (current.has(field) ? current : new Set([...current, field])));
  const problemOf = (field: string): string | undefined => (touched.has(field) ? problems[field]?.[0] : undefined);
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  const descriptionLength = description.length;
  const memberIds = useMemo(() => members.map((member) => member.id), [members]);

  function changeName(typed: string) {
    const filtered = filterProjectName(typed);
    setName(filtered);
    // §5: changing the name fills in the domain.
    setDomain(filtered === '' ? '' : domainForName(filtered, siteDomain));
    touch('name');
    touch('domain');
  }

  function addMember(hit: UserSearchHit) {
    setMembers((current) => (current.some((member) => member.id === hit.id) ? current : [...current, { id: hit.id, name: hit.name }]));
  }

  function removeMember(id: number) {
    setMembers((current) => current.filter((member) => member.id !== id));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!valid || saving) return;
    onSubmit(body);
  }

  return (
    <form className="card docker-form" onSubmit={submit} noValidate aria-labelledby={`${formId}-heading`} data-testid="docker-request-form">
      <Heading id={`${formId}-heading`}>{project === undefined ? 'Docker aanvragen' : 'Docker bewerken'}</Heading>

      <div className="field">
        <label className="field-label" htmlFor={`${formId}-name`}>
          Naam
        </label>
        <input
          type="text"
          id={`${formId}-name`}
          name="name"
          value={name}
          maxLength={PROJECT_NAME_MAX}
          autoComplete="off"
          spellCheck={false}
          placeholder="mijn-project"
          aria-describedby={`${formId}-name-hint`}
          onChange={(event) => changeName(event.target.value)}
        />
        <span id={`${formId}-name-hint`} className="field-hint">
          Alleen kleine letters a-z en streepjes, minstens 2 tekens. Dit wordt ook de naam van je container.
        </span>
        <FieldError messages={problemOf('name')} />
      </div>

      <div className="field">
        <label className="field-label" htmlFor={`${formId}-domain`}>
          Domein
        </label>
        <input
          type="text"
          id={`${formId}-domain`}
          name="domain"
          value={domain}
          maxLength={PROJECT_DOMAIN_MAX}
          autoComplete="off"
          spellCheck={false}
          placeholder={`mijn-project.${siteDomain}`}
          onChange={(event) => {
            setDomain(event.target.value.toLowerCase());
            touch('domain');
          }}
        />
        <FieldError messages={problemOf('domain')} />
      </div>

      <div className="field">
        <label className="field-label" htmlFor={`${formId}-docker_id`}>
          Image
        </label>
        <select
          id={`${formId}-docker_id`}
          name="docker_id"
          value={dockerId}
          onChange={(event) => {
            setDockerId(Number(event.target.value));
            touch('docker_id');
          }}
        >
          <option value={NO_DOCKER_IMAGE}>-- kies een image</option>
          {images.map((image) => (
            <option key={image.id} value={image.id}>
              {image.name}
            </option>
          ))}
        </select>
        <FieldError messages={problemOf('docker_id')} />
      </div>

      <div className="field">
        <label className="field-label" htmlFor={`${formId}-description`}>
          Beschrijving
        </label>
        <textarea
          id={`${formId}-description`}
          name="description"
          value={description}
          maxLength={PROJECT_DESCRIPTION_MAX}
          rows={4}
          placeholder="Wat ga je maken, en voor wie?"
          aria-describedby={`${formId}-description-counter`}
          onChange={(event) => {
            setDescription(event.target.value);
            touch('description');
          }}
        />
        <span
          id={`${formId}-description-counter`}
          className={descriptionCounterIsGreen(descriptionLength) ? 'char-counter enough' : 'char-counter'}
          data-testid="description-counter"
          aria-live="polite"
        >
          Aantal tekens: {descriptionLength} (min. {PROJECT_DESCRIPTION_MIN})
        </span>
      </div>

      <label className="checkbox-field">
        <input type="checkbox" name="visible" checked={visible} onChange={(event) => setVisible(event.target.checked)} />
        Zichtbaar op de websitespagina
      </label>

      <div className="field">
        <label className="field-label" htmlFor={`${formId}-repro`}>
          Git-repository (optioneel)
        </label>
        <input
          type="text"
          id={`${formId}-repro`}
          name="repro"
          value={repro}
          maxLength={PROJECT_REPRO_MAX}
          autoComplete="off"
          spellCheck={false}
          placeholder="https://git.school.nl/jij/project.git"
          onChange={(event) => {
            setRepro(event.target.value);
            touch('repro');
          }}
        />
        <FieldError messages={problemOf('repro')} />
      </div>

      <BranchField
        id={`${formId}-branch`}
        value={branch}
        onChange={(typed) => {
          setBranch(typed);
          touch('branch');
        }}
        hint={project !== undefined && knownBranch === undefined ? 'Leeg laten houdt de branch zoals hij is; je ziet hem op je docker onder Git-deploy.' : undefined}
        problem={problemOf('branch')}
      />

      <fieldset className="field member-field">
        <legend className="field-label">Teamleden</legend>
        <ul className="member-list" aria-label="Teamleden">
          {members.length === 0 && <li className="muted">Nog geen teamleden.</li>}
          {members.map((member) => {
            const fixed = keepCurrentUser && member.id === currentUser.id;
            return (
              <li key={member.id} className="member-chip">
                <span>
                  {member.name}
                  {member.id === currentUser.id && <span className="muted"> (jij)</span>}
                </span>
                {!fixed && (
                  <button type="button" className="member-remove" aria-label={`${member.name} verwijderen`} onClick={() => removeMember(member.id)}>
                    ×
                  </button>
                )}
              </li>
            );
          })}
        </ul>
        <UserSearch onPick={addMember} chosenIds={memberIds} all={searchAll} placeholder="zoek gebruikers" label="Teamlid zoeken" />
        <FieldError messages={problems.users?.[0]} />
      </fieldset>

      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={!valid || saving}>
          {saving ? 'Bezig…' : project === undefined ? 'Aanvragen' : 'Opslaan'}
        </button>
        {onCancel !== undefined && (
          <button type="button" className="button button-secondary" onClick={onCancel}>
            Annuleren
          </button>
        )}
      </div>
    </form>
  );
}

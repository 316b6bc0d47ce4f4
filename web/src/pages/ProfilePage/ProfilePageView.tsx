import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { Profile } from '../../api/queries/profile.ts';
import { Notice } from '../../components/Notice.tsx';
import { routePaths } from '../../routePaths.ts';
import '../../styles/levels-and-profile.css';

/** 'Profiel', plus 'van {name}' when the profile is a student's with level categories (spec §2). */
export function profileHeading(profile: Profile): string {
  return profile.levelCategories.length > 0 ? `Profiel van ${profile.name}` : 'Profiel';
}

export function ProfilePageView({
  profile,
  linkToRequests,
  loading,
  notFound,
  failed,
  projectRequestCount,
  sshKeys,
}: {
  profile: Profile | undefined;
  /** Whether the counter links to the approvals screen (admins only: others cannot open it). */
  linkToRequests: boolean;
  loading: boolean;
  notFound: boolean;
  failed: boolean;
  /** undefined: no counter for this viewer; null: still loading. */
  projectRequestCount: number | null | undefined;
  sshKeys: ReactNode;
}) {
  if (notFound) {
    return (
      <Notice title="Profiel niet gevonden" icon="user" testId="profile-not-found">
        <p className="notice-lead">Dit profiel bestaat niet (meer).</p>
      </Notice>
    );
  }
  if (failed) {
    return (
      <div className="page profile-page">
        <h1>Profiel</h1>
        <p className="card page-message" role="alert">
          Dit profiel kon niet worden geladen. Probeer het later opnieuw.
        </p>
      </div>
    );
  }
  if (loading || profile === undefined) {
    return (
      <div className="page profile-page">
        <h1>Profiel</h1>
        <p className="page-message" role="status">
          Profiel laden…
        </p>
      </div>
    );
  }
  const teamLabel = profile.teams.length === 1 ? 'Team' : 'Teams';
  return (
    <div className="page profile-page">
      <h1>{profileHeading(profile)}</h1>
      {projectRequestCount !== undefined && (
        <p className="card project-request-counter" data-testid="project-request-counter">
          <span className="project-request-count">
            Nieuwe projectaanvragen: <strong>{projectRequestCount ?? '…'}</strong>
          </span>
          {linkToRequests && projectRequestCount !== null && projectRequestCount > 0 && (
            <Link to={routePaths.adminDockersOpen}>Bekijk de aanvragen</Link>
          )}
        </p>
      )}
      <section className="card profile-card">
        <table className="profile-table">
          <tbody>
            <tr>
              <th scope="row">Naam</th>
              <td>{profile.name}</td>
            </tr>
            <tr>
              <th scope="row">E-mailadres</th>
              <td>
                <a href={`mailto:${profile.email}`}>{profile.email}</a>
              </td>
            </tr>
            <tr>
              <th scope="row">{teamLabel}</th>
              <td>{profile.teams.length === 0 ? 'Geen team' : profile.teams.map((team) => team.name).join(', ')}</td>
            </tr>
            <tr>
              <th scope="row">Klas</th>
              <td>{profile.group?.cohort ?? 'Geen klas'}</td>
            </tr>
          </tbody>
        </table>
      </section>
      {profile.levelCategories.length > 0 && (
        <section className="card profile-levels" aria-labelledby="profile-levels-heading">
          <h2 id="profile-levels-heading">Levels</h2>
          <ul className="level-progress">
            {profile.levelCategories.map((category) => (
              <li key={category.id} data-testid="level-progress">
                <span className="level-progress-label">{category.title} afgerond</span>
                <span className="level-progress-value">
                  {category.finished} van {category.number}
                </span>
                <progress max={category.number} value={category.finished} aria-label={`${category.title} afgerond`} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {sshKeys}
    </div>
  );
}

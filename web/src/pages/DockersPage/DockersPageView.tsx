import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { UserDocker } from '../../api/queries/dockers.ts';
import { pathTo } from '../../routePaths.ts';
import '../../styles/dockers.css';

export interface DockersPageViewProps {
  dockers: UserDocker[] | undefined;
  /** The server's Dutch message when the list could not be loaded. */
  loadError: string | null;
  /** One card per docker; the page passes the card with its behaviour, tests a plain view. */
  renderCard: (docker: UserDocker) => ReactNode;
}

/** Spec §2 Dockers: heading, the request button, 'Huidige dockers' and a card per project. */
export function DockersPageView({ dockers, loadError, renderCard }: DockersPageViewProps) {
  return (
    <div className="page dockers-page">
      <header className="dockers-page-header">
        <h1>Dockers</h1>
        <Link className="button button-primary" to={pathTo('dockersCreate')}>
          Nieuwe docker aanvragen
        </Link>
      </header>
      <section aria-labelledby="current-dockers-heading" className="dockers-section">
        <h2 id="current-dockers-heading">Huidige dockers</h2>
        {loadError !== null && dockers === undefined ? (
          <p className="card docker-alert" role="alert">
            {loadError}
          </p>
        ) : dockers === undefined ? (
          <p className="page-message" role="status">
            Dockers laden…
          </p>
        ) : dockers.length === 0 ? (
          <p className="card page-message" data-testid="no-dockers">
            Je hebt nog geen dockers aangemaakt
          </p>
        ) : (
          <ul className="docker-list" aria-label="Huidige dockers">
            {dockers.map((docker) => renderCard(docker))}
          </ul>
        )}
      </section>
    </div>
  );
}

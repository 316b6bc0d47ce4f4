import { memo, type SyntheticEvent } from 'react';
import { FALLBACK_THUMBNAIL_URL, UNGROUPED_COHORT, thumbnailUrl } from '../../api/queries/sites.ts';
import { Notice } from '../../components/Notice.tsx';
import { ALL_COHORTS, type CohortBlock, type CohortFilter, type WallSite } from './wall.ts';

/** Thumbnails are captured at a quarter of 1280×800; width/height reserve their space before loading. */
const THUMBNAIL_WIDTH = 320;
const THUMBNAIL_HEIGHT = 200;

export interface WebsitesPageViewProps {
  state: 'loading' | 'error' | 'ready';
  total: number;
  ownSites: WallSite[];
  cohorts: string[];
  cohort: CohortFilter;
  onCohortChange: (cohort: CohortFilter) => void;
  search: string;
  onSearchChange: (search: string) => void;
  blocks: CohortBlock[];
  /** The shown blocks still belong to an older search term (a large wall filters in the background). */
  searching: boolean;
  onRetry: () => void;
}

/** The websites wall: 'Jouw websites' (only if any), then 'Alle projecten' per cohort. */
export function WebsitesPageView(props: WebsitesPageViewProps) {
  return (
    <div className="page websites-page">
      <header className="websites-header">
        <h1>Websites</h1>
        <p className="websites-lead">
          Dit zijn de websites die studenten van alle klassen gebouwd hebben. Klik op een website om hem in een nieuw
          tabblad te openen.
        </p>
      </header>
      {props.state === 'loading' && (
        <p className="card websites-status" role="status">
          Websites laden…
        </p>
      )}
      {props.state === 'error' && (
        <Notice title="De websites konden niet geladen worden" icon="globe">
          <p>Controleer je verbinding en probeer het opnieuw.</p>
          <button type="button" className="button button-primary" onClick={props.onRetry}>
            Opnieuw proberen
          </button>
        </Notice>
      )}
      {props.state === 'ready' && <Wall {...props} />}
    </div>
  );
}

function Wall(props: WebsitesPageViewProps) {
  const { ownSites, cohorts, cohort, onCohortChange, search, onSearchChange, blocks, total } = props;
  const shown = blocks.reduce((count, block) => count + block.sites.length, 0);
  return (
    <>
      {ownSites.length > 0 && (
        <section className="websites-section own-websites" aria-labelledby="jouw-websites">
          <h2 id="jouw-websites">Jouw websites</h2>
          <SiteGrid sites={ownSites} />
        </section>
      )}
      <section className="websites-section" aria-labelledby="alle-projecten">
        <h2 id="alle-projecten">Alle projecten</h2>
        <div className="wall-toolbar">
          <div className="cohort-filter" role="group" aria-label="Filter op klas">
            <FilterButton label="Allemaal" value={ALL_COHORTS} current={cohort} onChange={onCohortChange} />
            {cohorts.map((value) => (
              <FilterButton key={value} label={value} value={value} current={cohort} onChange={onCohortChange} />
            ))}
            <FilterButton label={UNGROUPED_COHORT} value={UNGROUPED_COHORT} current={cohort} onChange={onCohortChange} />
          </div>
          <label className="wall-search">
            <SearchIcon />
            <input
              type="search"
              placeholder="Zoek naam"
              aria-label="Zoek naam"
              value={search}
              onChange={(event) => onSearchChange(event.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          </label>
        </div>
        <p className="wall-count" aria-live="polite">
          {shown === total ? `${total} ${total === 1 ? 'project' : 'projecten'}` : `${shown} van ${total} projecten`}
        </p>
        {total === 0 ? (
          <p className="wall-empty">Er staan nog geen websites op devplein.</p>
        ) : blocks.length === 0 ? (
          <p className="wall-empty">Geen projecten gevonden. Kies een andere klas of zoek op een andere naam.</p>
        ) : (
          <div className={props.searching ? 'cohort-blocks is-stale' : 'cohort-blocks'}>
            {blocks.map((block) => (
              <CohortSection key={block.cohort} block={block} />
            ))}
          </div>
        )}
      </section>
    </>
  );
}

function FilterButton({
  label,
  value,
  current,
  onChange,
}: {
  label: string;
  value: CohortFilter;
  current: CohortFilter;
  onChange: (cohort: CohortFilter) => void;
}) {
  const pressed = value === current;
  return (
    <button
      type="button"
      className={pressed ? 'filter-button is-active' : 'filter-button'}
      aria-pressed={pressed}
      onClick={() => onChange(value)}
    >
      {label}
    </button>
  );
}

const CohortSection = memo(function CohortSection({ block }: { block: CohortBlock }) {
  const id = `cohort-${block.cohort.replace(/[^A-Za-z0-9]+/g, '-')}`;
  return (
    <section className="cohort-block" aria-labelledby={id}>
      <h3 id={id}>
        Projecten van {block.cohort} <span className="cohort-count">{block.sites.length}</span>
      </h3>
      <SiteGrid sites={block.sites} />
    </section>
  );
});

function SiteGrid({ sites }: { sites: WallSite[] }) {
  return (
    <ul className="site-grid">
      {sites.map((entry) => (
        <SiteTile key={entry.site.name} entry={entry} />
      ))}
    </ul>
  );
}

/**
 * A site without a thumbnail (the answer says so) shows the neutral placeholder straight away,
 * without asking for a picture that is not there; one whose picture still fails to load falls
 * back to it (once: no loop if that fails too).
 */
function showFallback(event: SyntheticEvent<HTMLImageElement>): void {
  const image = event.currentTarget;
  if (image.dataset.fallback === 'true') return;
  image.dataset.fallback = 'true';
  image.src = FALLBACK_THUMBNAIL_URL;
}

const SiteTile = memo(function SiteTile({ entry }: { entry: WallSite }) {
  const { site, memberNames } = entry;
  return (
    <li className="site-tile">
      <a
        href={`http://${site.domain}`}
        target="_blank"
        rel="noopener"
        className="site-link"
        title={memberNames.length > 0 ? `${site.name} (${memberNames.join(', ')})` : site.name}
      >
        <img
          className="site-thumb"
          src={site.thumbnail ? thumbnailUrl(site) : FALLBACK_THUMBNAIL_URL}
          onError={site.thumbnail ? showFallback : undefined}
          loading="lazy"
          decoding="async"
          width={THUMBNAIL_WIDTH}
          height={THUMBNAIL_HEIGHT}
          alt=""
        />
        <span className="site-name">{site.name}</span>
        <span className="site-members">{memberNames.length > 0 ? memberNames.join(', ') : 'Geen leden'}</span>
      </a>
    </li>
  );
});

/** A magnifier (Feather's "search", MIT); decorative, the input carries its own label. */
function SearchIcon() {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      aria-hidden="true"
      focusable="false"
    >
      <circle cx="11" cy="11" r="7" />
      <path d="m20 20-3.5-3.5" />
    </svg>
  );
}

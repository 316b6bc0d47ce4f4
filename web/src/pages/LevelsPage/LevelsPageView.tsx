import { Link } from 'react-router-dom';
import type { LevelCategory, LevelTile } from '../../api/queries/levels.ts';
import { Icon } from '../../components/Icon.tsx';
import { pathTo } from '../../routePaths.ts';
import '../../styles/levels-and-profile.css';

/**
 * Categories with tiles 1..n. Locked: grey overlay with a lock; success: green overlay with a
 * check; open: no overlay. Every tile that is not locked links to its level.
 */
export function LevelsPageView({
  categories,
  loading,
  failed,
}: {
  categories: LevelCategory[] | undefined;
  loading: boolean;
  failed: boolean;
}) {
  return (
    <div className="page levels-page">
      <h1>Levels</h1>
      {failed ? (
        <p className="card page-message" role="alert">
          De levels konden niet worden geladen. Probeer het later opnieuw.
        </p>
      ) : loading || categories === undefined ? (
        <p className="page-message" role="status">
          Levels laden…
        </p>
      ) : categories.length === 0 ? (
        <p className="card page-message">Er zijn nog geen levels. Je docent maakt ze aan.</p>
      ) : (
        categories.map((category) => <CategorySection key={category.id} category={category} />)
      )}
    </div>
  );
}

function CategorySection({ category }: { category: LevelCategory }) {
  const finished = category.levels.filter((level) => level.status === 'success').length;
  const headingId = `level-category-${category.id}`;
  return (
    <section className="card level-category" aria-labelledby={headingId} data-testid="level-category">
      <header className="level-category-header">
        <h2 id={headingId}>{category.title}</h2>
        <span className="level-category-count">
          {finished} van {category.levels.length} behaald
        </span>
      </header>
      <ol className="level-tiles">
        {category.levels.map((level) => (
          <li key={level.number}>
            <Tile level={level} />
          </li>
        ))}
      </ol>
    </section>
  );
}

const statusLabel: Record<LevelTile['status'], string> = {
  locked: 'op slot',
  open: 'open',
  success: 'behaald',
};

function Tile({ level }: { level: LevelTile }) {
  const label = `Level ${level.number}: ${level.title === '-' ? 'nog niet beschikbaar' : level.title}, ${statusLabel[level.status]}`;
  const body = (
    <>
      <span className="level-tile-number">{level.number}</span>
      <span className="level-tile-title">{level.title}</span>
      {level.status === 'locked' && (
        <span className="level-tile-overlay">
          <Icon name="lock" />
        </span>
      )}
      {level.status === 'success' && (
        <span className="level-tile-overlay">
          <Icon name="checkCircle" />
        </span>
      )}
    </>
  );
  const className = `level-tile level-tile-${level.status}`;
  if (level.status === 'locked' || level.id === null) {
    return (
      <div className={className} aria-label={label} title={label} data-testid="level-tile" data-status={level.status} role="img">
        {body}
      </div>
    );
  }
  return (
    <Link
      to={pathTo('level', { id: level.id })}
      className={className}
      aria-label={label}
      title={label}
      data-testid="level-tile"
      data-status={level.status}
    >
      {body}
    </Link>
  );
}

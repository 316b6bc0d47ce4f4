import { Link } from 'react-router-dom';
import { courseFileUrl, type LevelDetail } from '../../api/queries/levels.ts';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { routePaths } from '../../routePaths.ts';
import { Markdown } from './Markdown.tsx';
import '../../styles/levels-and-profile.css';

/** Heading of the level screen: 'Level {id}: {course titles}' (content title when it has no courses). */
export function levelHeading(level: LevelDetail): string {
  const titles = level.courses.map((course) => course.title);
  return `Level ${level.id}: ${titles.length > 0 ? titles.join(', ') : (level.content?.title ?? '-')}`;
}

export function LevelPageView({
  level,
  loading,
  notFound,
  failed,
}: {
  level: LevelDetail | undefined;
  loading: boolean;
  notFound: boolean;
  failed: boolean;
}) {
  if (notFound) {
    return (
      <Notice title="Level niet gevonden" icon="stairs" testId="level-not-found">
        <p className="notice-lead">Dit level bestaat niet, of het is niet van jou.</p>
        <p>
          <BackLink />
        </p>
      </Notice>
    );
  }
  if (failed) {
    return (
      <div className="page level-page">
        <BackLink />
        <p className="card page-message" role="alert">
          Dit level kon niet worden geladen. Probeer het later opnieuw.
        </p>
      </div>
    );
  }
  if (loading || level === undefined) {
    return (
      <div className="page level-page">
        <BackLink />
        <p className="page-message" role="status">
          Level laden…
        </p>
      </div>
    );
  }
  return (
    <div className="page level-page">
      <BackLink />
      <header className="level-header">
        <p className="level-kicker">
          {level.category.title} · level {level.number}
        </p>
        <h1>{levelHeading(level)}</h1>
      </header>
      {level.status === 'success' && (
        <p className="level-achieved" data-testid="level-achieved">
          <Icon name="checkCircle" />
          Level behaald
        </p>
      )}
      {level.courses.length === 0 ? (
        <p className="card page-message">Voor dit level staat nog geen lesstof klaar.</p>
      ) : (
        level.courses.map((course) => <CourseSection key={course.id} course={course} />)
      )}
      <BackLink />
    </div>
  );
}

function CourseSection({ course }: { course: LevelDetail['courses'][number] }) {
  return (
    <section className="card course" aria-label={course.title} data-testid="course">
      <h2>{course.title}</h2>
      <div className="accordion">
        {course.texts.map((text, index) => (
          <details key={index} className="accordion-panel" open={index === 0}>
            <summary>{text.title}</summary>
            <div className="accordion-body">
              <Markdown text={text.text} />
            </div>
          </details>
        ))}
        {course.files.length > 0 && (
          <details className="accordion-panel" data-testid="course-files">
            <summary>Bestanden</summary>
            <div className="accordion-body">
              <ul className="course-files">
                {course.files.map((file) => (
                  <li key={file.id}>
                    <a href={courseFileUrl(file.id)} download>
                      <Icon name="folder" />
                      <span>{file.title}</span>
                    </a>
                    <span className="course-file-type">{file.type}</span>
                  </li>
                ))}
              </ul>
            </div>
          </details>
        )}
      </div>
    </section>
  );
}

function BackLink() {
  return (
    <Link to={routePaths.levels} className="back-link">
      <Icon name="arrowRight" className="back-link-icon" />
      Terug
    </Link>
  );
}

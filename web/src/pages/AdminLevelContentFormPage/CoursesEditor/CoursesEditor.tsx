import { useState, type FormEvent } from 'react';
import { courseMutations } from '../../../api/queries/adminLevels.ts';
import { AsyncContent } from '../../../components/AsyncContent.tsx';
import { CourseCard } from './CourseCard.tsx';
import { useCourseEditing } from './useCourseEditing.ts';

/**
 * The courses of one level content, as students will see them on the level page: per course its
 * texts (Markdown, previewed as students see it) and files, each in an order the teacher sets.
 */
export function CoursesEditor({ contentId }: { contentId: number }) {
  const { courses, failed, problem, run } = useCourseEditing(contentId);
  const [newTitle, setNewTitle] = useState('');

  async function addCourse(event: FormEvent) {
    event.preventDefault();
    if (await run(() => courseMutations.add(contentId, newTitle))) setNewTitle('');
  }

  return (
    <section className="courses-editor" aria-labelledby="courses-heading">
      <header>
        <h2 id="courses-heading">Cursussen</h2>
        <p className="admin-lead">
          Wat studenten in dit level lezen en downloaden. Teksten schrijf je in Markdown; de volgorde pas je aan met de pijltjes.
        </p>
      </header>
      {problem !== null && (
        <p className="card error-text" role="alert">
          {problem}
        </p>
      )}
      <AsyncContent
        data={courses}
        failed={failed}
        errorText="De cursussen konden niet worden geladen."
        loadingText="Cursussen laden…"
        empty="Dit level heeft nog geen cursussen."
      >
        {(courses) =>
          courses.map((course, index) => <CourseCard key={course.id} course={course} index={index} count={courses.length} run={run} />)
        }
      </AsyncContent>
      <form className="card inline-form" onSubmit={addCourse}>
        <label className="field">
          <span className="field-label">Nieuwe cursus</span>
          <input
            type="text"
            className="text-input"
            value={newTitle}
            maxLength={200}
            placeholder="Titel van de cursus"
            onChange={(event) => setNewTitle(event.target.value)}
          />
        </label>
        <button type="submit" className="button button-primary" disabled={newTitle.trim() === ''}>
          Cursus toevoegen
        </button>
      </form>
    </section>
  );
}

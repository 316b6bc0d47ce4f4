import { useState } from 'react';
import { courseMutations, type Course } from '../../../api/queries/adminLevels.ts';
import { CoursePart } from './CoursePart.tsx';
import { FileItem } from './FileItem.tsx';
import { MoveButtons } from './MoveButtons.tsx';
import { TextEditor } from './TextEditor.tsx';
import { TextItem } from './TextItem.tsx';
import { UploadForm } from './UploadForm.tsx';
import type { Run } from './useCourseEditing.ts';

/** One course: its title, order and delete buttons, then its texts and its files. */
export function CourseCard({ course, index, count, run }: { course: Course; index: number; count: number; run: Run }) {
  const [title, setTitle] = useState(course.title);
  const [addingText, setAddingText] = useState(false);
  const label = `Cursus ${course.title}`;

  return (
    <article className="card course-card" aria-label={label} data-testid="course">
      <div className="course-header">
        <span className="course-number" aria-hidden="true">
          {index + 1}
        </span>
        <input
          type="text"
          className="text-input"
          aria-label="Titel van de cursus"
          value={title}
          maxLength={200}
          onChange={(event) => setTitle(event.target.value)}
        />
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={title.trim() === '' || title === course.title}
          onClick={() => void run(() => courseMutations.rename(course.id, title))}
        >
          Titel opslaan
        </button>
        <MoveButtons label={label} index={index} count={count} onMove={(direction) => void run(() => courseMutations.move(course.id, direction))} />
        <button
          type="button"
          className="button button-danger button-small"
          onClick={() => {
            if (window.confirm(`Cursus "${course.title}" met alle teksten en bestanden verwijderen?`)) void run(() => courseMutations.remove(course.id));
          }}
        >
          Verwijderen
        </button>
      </div>

      <CoursePart title="Teksten">
        {course.texts.length === 0 && !addingText && <p className="muted">Nog geen teksten.</p>}
        <ul className="course-items">
          {course.texts.map((text, textIndex) => (
            <TextItem key={text.id} courseId={course.id} text={text} index={textIndex} count={course.texts.length} run={run} />
          ))}
        </ul>
        {addingText ? (
          <TextEditor
            initial={{ title: '', body: '' }}
            submitLabel="Tekst toevoegen"
            onCancel={() => setAddingText(false)}
            onSave={async (text) => {
              if (await run(() => courseMutations.addText(course.id, text))) setAddingText(false);
            }}
          />
        ) : (
          <div>
            <button type="button" className="button button-secondary button-small" onClick={() => setAddingText(true)}>
              Tekst toevoegen
            </button>
          </div>
        )}
      </CoursePart>

      <CoursePart title="Bestanden">
        {course.files.length === 0 && <p className="muted">Nog geen bestanden.</p>}
        <ul className="course-items">
          {course.files.map((file, fileIndex) => (
            <FileItem key={file.id} courseId={course.id} file={file} index={fileIndex} count={course.files.length} run={run} />
          ))}
        </ul>
        <UploadForm courseId={course.id} run={run} />
      </CoursePart>
    </article>
  );
}

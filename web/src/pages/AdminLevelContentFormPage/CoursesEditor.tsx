import { useState, type FormEvent, type ReactNode } from 'react';
import Markdown from 'react-markdown';
import { ApiError } from '../../api/client.ts';
import {
  COURSE_FILE_EXTENSIONS,
  MAX_COURSE_FILE_BYTES,
  courseMutations,
  uploadCourseFile,
  useCourses,
  type Course,
  type CourseFile,
  type CourseText,
  type MoveDirection,
} from '../../api/queries/adminLevels.ts';
import { courseFileTypeRefused } from '@devplein/contract/levels';
import { EMPTY_FILE_MESSAGE } from '@devplein/contract/messages';

/** What went wrong, in words for a teacher (422 field messages when there are any). */
function problemOf(error: unknown): string {
  if (error instanceof ApiError) return error.fieldMessages() || error.message;
  return error instanceof Error ? error.message : 'Er ging iets mis.';
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The courses of one level content, as students will see them on the level page: per course its
 * texts (Markdown, previewed as students see it) and files, each in an order the teacher sets.
 */
export function CoursesEditor({ contentId }: { contentId: number }) {
  const { data: courses, error, mutate } = useCourses(String(contentId));
  const [newTitle, setNewTitle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  /** Runs a change, then reloads the courses; a failure is shown above the list. */
  const run = async (change: () => Promise<unknown>): Promise<boolean> => {
    setProblem(null);
    try {
      await change();
      await mutate();
      return true;
    } catch (caught) {
      setProblem(problemOf(caught));
      await mutate();
      return false;
    }
  };

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
      {error !== undefined ? (
        <p className="card error-text" role="alert">
          De cursussen konden niet worden geladen.
        </p>
      ) : courses === undefined ? (
        <p className="page-message" role="status">
          Cursussen laden…
        </p>
      ) : courses.length === 0 ? (
        <p className="card page-message">Dit level heeft nog geen cursussen.</p>
      ) : (
        courses.map((course, index) => (
          <CourseCard key={course.id} course={course} index={index} count={courses.length} run={run} />
        ))
      )}
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

type Run = (change: () => Promise<unknown>) => Promise<boolean>;

function MoveButtons({
  label,
  index,
  count,
  onMove,
}: {
  label: string;
  index: number;
  count: number;
  onMove: (direction: MoveDirection) => void;
}) {
  return (
    <>
      <button type="button" className="icon-button" aria-label={`${label} omhoog`} title="Omhoog" disabled={index === 0} onClick={() => onMove('up')}>
        ↑
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={`${label} omlaag`}
        title="Omlaag"
        disabled={index === count - 1}
        onClick={() => onMove('down')}
      >
        ↓
      </button>
    </>
  );
}

function CourseCard({ course, index, count, run }: { course: Course; index: number; count: number; run: Run }) {
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

function CoursePart({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="courses-editor">
      <h3 className="course-part-title">{title}</h3>
      {children}
    </section>
  );
}

function TextItem({ courseId, text, index, count, run }: { courseId: number; text: CourseText; index: number; count: number; run: Run }) {
  const [editing, setEditing] = useState(false);
  const label = `Tekst ${text.title}`;
  return (
    <li className="course-item" data-testid="course-text">
      <div className="course-item-row">
        <span className="course-item-title">{text.title}</span>
        <MoveButtons label={label} index={index} count={count} onMove={(direction) => void run(() => courseMutations.moveText(courseId, text.id, direction))} />
        <button type="button" className="button button-secondary button-small" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? 'Sluiten' : 'Bewerken'}
        </button>
        <button
          type="button"
          className="button button-danger button-small"
          onClick={() => {
            if (window.confirm(`Tekst "${text.title}" verwijderen?`)) void run(() => courseMutations.removeText(courseId, text.id));
          }}
        >
          Verwijderen
        </button>
      </div>
      {editing && (
        <TextEditor
          initial={{ title: text.title, body: text.body }}
          submitLabel="Tekst opslaan"
          onCancel={() => setEditing(false)}
          onSave={async (changed) => {
            if (await run(() => courseMutations.saveText(courseId, text.id, changed))) setEditing(false);
          }}
        />
      )}
    </li>
  );
}

/** Title and Markdown body side by side with a preview rendered as students see it (no raw HTML). */
function TextEditor({
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  initial: { title: string; body: string };
  submitLabel: string;
  onSave: (text: { title: string; body: string }) => Promise<void>;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(initial.title);
  const [body, setBody] = useState(initial.body);
  return (
    <form
      className="text-editor"
      onSubmit={(event) => {
        event.preventDefault();
        void onSave({ title, body });
      }}
    >
      <label className="field">
        <span className="field-label">Titel van de tekst</span>
        <input type="text" value={title} maxLength={200} onChange={(event) => setTitle(event.target.value)} />
      </label>
      <div className="text-editor-panes">
        <label className="field">
          <span className="field-label">Tekst (Markdown)</span>
          <textarea value={body} onChange={(event) => setBody(event.target.value)} />
        </label>
        <div className="field">
          <span className="field-label">Voorbeeld</span>
          <div className="markdown-preview" data-testid="markdown-preview">
            {body.trim() === '' ? <p className="muted">Nog niets om te tonen.</p> : <Markdown>{body}</Markdown>}
          </div>
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary button-small" disabled={title.trim() === ''}>
          {submitLabel}
        </button>
        <button type="button" className="button button-secondary button-small" onClick={onCancel}>
          Annuleren
        </button>
      </div>
    </form>
  );
}

function FileItem({ courseId, file, index, count, run }: { courseId: number; file: CourseFile; index: number; count: number; run: Run }) {
  const label = `Bestand ${file.title}`;
  return (
    <li className="course-item" data-testid="course-file">
      <div className="course-item-row">
        <span className="course-item-title">
          <a href={file.url} download={file.filename}>
            {file.title}
          </a>{' '}
          <span className="course-item-meta">
            {file.type} · {file.filename} · {formatSize(file.size)}
          </span>
        </span>
        <MoveButtons label={label} index={index} count={count} onMove={(direction) => void run(() => courseMutations.moveFile(courseId, file.id, direction))} />
        <button
          type="button"
          className="button button-danger button-small"
          onClick={() => {
            if (window.confirm(`Bestand "${file.title}" verwijderen?`)) void run(() => courseMutations.removeFile(courseId, file.id));
          }}
        >
          Verwijderen
        </button>
      </div>
    </li>
  );
}

const ACCEPT = COURSE_FILE_EXTENSIONS.map((extension) => `.${extension}`).join(',');

/** Checks a chosen file as the server will (type by extension, size), so a teacher hears it at once. */
function fileProblem(file: File): string | null {
  const extension = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
  if (!COURSE_FILE_EXTENSIONS.includes(extension)) {
    return courseFileTypeRefused();
  }
  if (file.size > MAX_COURSE_FILE_BYTES) return 'Het bestand is te groot: hoogstens 10 MB.';
  if (file.size === 0) return EMPTY_FILE_MESSAGE;
  return null;
}

/** A file's name without its extension: the default title. */
const baseName = (file: File): string => file.name.replace(/\.[^.]+$/, '');

function UploadForm({ courseId, run }: { courseId: number; run: Run }) {
  const [title, setTitle] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [uploading, setUploading] = useState(false);
  const problem = file === null ? null : fileProblem(file);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (file === null || problem !== null) return;
    setUploading(true);
    const ok = await run(() => uploadCourseFile(courseId, title.trim() === '' ? file.name : title, file));
    setUploading(false);
    if (ok) {
      setTitle('');
      setFile(null);
      setInputKey((key) => key + 1);
    }
  }

  return (
    <form className="inline-form" onSubmit={submit}>
      <label className="field">
        <span className="field-label">Bestand</span>
        <input
          key={inputKey}
          type="file"
          accept={ACCEPT}
          onChange={(event) => {
            const chosen = event.target.files?.[0] ?? null;
            // The title follows the chosen file until the teacher types one of their own.
            if (file === null ? title.trim() === '' : title === baseName(file)) setTitle(chosen === null ? '' : baseName(chosen));
            setFile(chosen);
          }}
        />
      </label>
      <label className="field">
        <span className="field-label">Titel voor studenten</span>
        <input type="text" className="text-input" value={title} maxLength={200} onChange={(event) => setTitle(event.target.value)} />
      </label>
      <button type="submit" className="button button-secondary" disabled={file === null || problem !== null || uploading}>
        {uploading ? 'Bezig met uploaden…' : 'Uploaden'}
      </button>
      {problem !== null && (
        <p className="field-error" role="alert" style={{ flexBasis: '100%' }}>
          {problem}
        </p>
      )}
      <p className="course-item-meta" style={{ flexBasis: '100%', margin: 0 }}>
        Hoogstens 10 MB; {COURSE_FILE_EXTENSIONS.join(', ')}.
      </p>
    </form>
  );
}

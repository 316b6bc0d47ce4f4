import { useState, type FormEvent } from 'react';
import { COURSE_FILE_EXTENSIONS, uploadCourseFile } from '../../../api/queries/adminLevels.ts';
import { ACCEPT, baseName, fileProblem } from './courseFiles.ts';
import type { Run } from './useCourseEditing.ts';

/** Upload a file to a course; the chosen file is checked here first, as the server will. */
export function UploadForm({ courseId, run }: { courseId: number; run: Run }) {
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

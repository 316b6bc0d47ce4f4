import { useState } from 'react';
import { courseMutations, type CourseText } from '../../../api/queries/adminLevels.ts';
import { MoveButtons } from './MoveButtons.tsx';
import { TextEditor } from './TextEditor.tsx';
import type { Run } from './useCourseEditing.ts';

/** One text of a course, with its order, edit and delete buttons. */
export function TextItem({ courseId, text, index, count, run }: { courseId: number; text: CourseText; index: number; count: number; run: Run }) {
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

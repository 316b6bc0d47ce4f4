import { useState } from 'react';
import Markdown from 'react-markdown';

/** Title and Markdown body side by side with a preview rendered as students see it (no raw HTML). */
export function TextEditor({
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

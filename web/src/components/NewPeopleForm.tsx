import { useState, type FormEvent } from 'react';
import { FieldError } from './FieldError.tsx';

/** 'Nieuw team' / 'Nieuwe groep': one text field and a create button; the server's errors below it. */
export function NewPeopleForm({
  label,
  placeholder,
  maxLength,
  submitText,
  onCreate,
  errors,
}: {
  label: string;
  placeholder: string;
  maxLength: number;
  submitText: string;
  /** Resolves true when it was made (the form then clears). */
  onCreate: (value: string) => Promise<boolean>;
  errors: string[];
}) {
  const [value, setValue] = useState('');
  const [saving, setSaving] = useState(false);
  // The server's errors describe what was sent; once the field changes they no longer apply.
  const [edited, setEdited] = useState(false);
  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    setEdited(false);
    setSaving(true);
    if (await onCreate(value)) setValue('');
    setSaving(false);
  }
  return (
    <form className="people-create" onSubmit={(event) => void submit(event)} aria-label={label}>
      <label className="field">
        <span className="field-label">{label}</span>
        <input type="text" value={value} maxLength={maxLength} placeholder={placeholder} onChange={(event) => {
            setValue(event.target.value);
            setEdited(true);
          }} />
      </label>
      <button type="submit" className="button button-secondary" disabled={saving || value.trim() === ''}>
        {submitText}
      </button>
      <FieldError as="p" role="alert" messages={edited ? undefined : errors} />
    </form>
  );
}

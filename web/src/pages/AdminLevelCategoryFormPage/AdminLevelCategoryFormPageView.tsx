import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { FieldErrors } from '../../api/client.ts';
import type { AdminLevelCategory, LevelCategoryInput } from '../../api/queries/adminLevels.ts';
import { routePaths } from '../../routePaths.ts';
import { FieldError } from '../../components/FieldError.tsx';

/** The category form: Titel, Hoeveel? (number), Icoontjes? checkbox, Opslaan and Terug. */
export function AdminLevelCategoryFormPageView({
  editing,
  category,
  loadFailed,
  saving,
  errors,
  failure,
  onSave,
}: {
  editing: boolean;
  category: AdminLevelCategory | undefined;
  loadFailed: boolean;
  saving: boolean;
  errors: FieldErrors;
  failure: string | null;
  onSave: (input: LevelCategoryInput) => void;
}) {
  const [title, setTitle] = useState(category?.title ?? '');
  const [number, setNumber] = useState(category === undefined ? '10' : String(category.number));
  const [icons, setIcons] = useState(category?.icons === 1);
  const heading = editing ? 'Levelcategorie bewerken' : 'Levelcategorie toevoegen';

  if (loadFailed) {
    return (
      <div className="page admin-page">
        <h1>{heading}</h1>
        <p className="card error-text" role="alert">
          Deze categorie kon niet worden geladen. <Link to={routePaths.adminLevelCategories}>Terug</Link>
        </p>
      </div>
    );
  }
  if (editing && category === undefined) {
    return (
      <div className="page admin-page">
        <h1>{heading}</h1>
        <p className="page-message" role="status">
          Categorie laden…
        </p>
      </div>
    );
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    onSave({ title, number: Number(number), icons });
  }

  return (
    <div className="page admin-page">
      <h1>{heading}</h1>
      <form className="card admin-form" onSubmit={submit} noValidate>
        <label className="field">
          <span className="field-label">Titel</span>
          <input type="text" value={title} maxLength={100} required onChange={(event) => setTitle(event.target.value)} />
          <FieldError as="p" role="alert" messages={errors.title} />
        </label>
        <label className="field">
          <span className="field-label">Hoeveel?</span>
          <input
            type="number"
            min={1}
            max={50}
            step={1}
            value={number}
            required
            onChange={(event) => setNumber(event.target.value)}
          />
          <FieldError as="p" role="alert" messages={errors.number} />
        </label>
        <label className="checkbox-field">
          <input type="checkbox" checked={icons} onChange={(event) => setIcons(event.target.checked)} />
          Icoontjes?
        </label>
        <FieldError as="p" role="alert" messages={errors.icons} />
        {failure !== null && (
          <p className="field-error" role="alert">
            {failure}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={saving}>
            Opslaan
          </button>
          <Link to={routePaths.adminLevelCategories} className="button button-secondary">
            Terug
          </Link>
        </div>
      </form>
    </div>
  );
}

import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { FieldErrors } from '../../api/client.ts';
import type { AdminLevelCategory, LevelContentInput, LevelContentItem } from '../../api/queries/adminLevels.ts';
import { routePaths } from '../../routePaths.ts';
import { FieldError } from '../../components/FieldError.tsx';

/** The content form: 'Titel voor studenten', 'Titel voor docenten', Categorie; Opslaan, Terug. */
export function AdminLevelContentFormPageView({
  editing,
  content,
  categories,
  loadFailed,
  saving,
  errors,
  failure,
  onSave,
}: {
  editing: boolean;
  content: LevelContentItem | undefined;
  categories: AdminLevelCategory[] | undefined;
  loadFailed: boolean;
  saving: boolean;
  errors: FieldErrors;
  failure: string | null;
  onSave: (input: LevelContentInput) => void;
}) {
  const [title, setTitle] = useState(content?.title ?? '');
  const [titleForTeachers, setTitleForTeachers] = useState(content?.title_for_teachers ?? '');
  const [categoryId, setCategoryId] = useState(content === undefined ? '' : String(content.level_categories_id));
  const heading = editing ? 'Levelinhoud bewerken' : 'Levelinhoud toevoegen';

  if (loadFailed) {
    return (
      <>
        <h1>{heading}</h1>
        <p className="card error-text" role="alert">
          Deze levelinhoud kon niet worden geladen. <Link to={routePaths.adminLevelContent}>Terug</Link>
        </p>
      </>
    );
  }
  if ((editing && content === undefined) || categories === undefined) {
    return (
      <>
        <h1>{heading}</h1>
        <p className="page-message" role="status">
          Laden…
        </p>
      </>
    );
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    onSave({
      title,
      title_for_teachers: titleForTeachers.trim() === '' ? null : titleForTeachers,
      level_categories_id: Number(categoryId),
    });
  }

  return (
    <>
      <h1>{heading}</h1>
      <form className="card admin-form" onSubmit={submit} noValidate>
        <label className="field">
          <span className="field-label">Titel voor studenten</span>
          <input type="text" value={title} maxLength={200} required onChange={(event) => setTitle(event.target.value)} />
          <FieldError as="p" role="alert" messages={errors.title} />
        </label>
        <label className="field">
          <span className="field-label">Titel voor docenten</span>
          <input type="text" value={titleForTeachers} maxLength={200} onChange={(event) => setTitleForTeachers(event.target.value)} />
          <FieldError as="p" role="alert" messages={errors.title_for_teachers} />
        </label>
        <label className="field">
          <span className="field-label">Categorie</span>
          <select value={categoryId} required onChange={(event) => setCategoryId(event.target.value)}>
            <option value="">-- categorie</option>
            {categories.map((category) => (
              <option key={category.id} value={category.id}>
                {category.title}
              </option>
            ))}
          </select>
          <FieldError as="p" role="alert" messages={errors.level_categories_id} />
        </label>
        {failure !== null && (
          <p className="field-error" role="alert">
            {failure}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={saving}>
            Opslaan
          </button>
          <Link to={routePaths.adminLevelContent} className="button button-secondary">
            Terug
          </Link>
        </div>
      </form>
    </>
  );
}

import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useSWRConfig } from 'swr';
import { ApiError, type FieldErrors } from '../../api/client.ts';
import { adminLevelKeys, saveLevelCategory, useLevelCategory, type LevelCategoryInput } from '../../api/queries/adminLevels.ts';
import { routePaths } from '../../routePaths.ts';
import { AdminLevelCategoryFormPageView } from './AdminLevelCategoryFormPageView.tsx';
import '../../styles/admin-levels.css';

/**
 * /admin/levels/categories/create and /admin/levels/categories/{id}: the category form
 * (Titel, Hoeveel?, Icoontjes?); saving goes back to the list (spec §2).
 */
export function AdminLevelCategoryFormPage() {
  const { id } = useParams<{ id: string }>();
  const editing = id !== undefined && id !== 'create';
  const { data, error } = useLevelCategory(editing ? id : undefined);
  const navigate = useNavigate();
  const { mutate } = useSWRConfig();
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);

  async function save(input: LevelCategoryInput) {
    setSaving(true);
    setErrors({});
    setFailure(null);
    try {
      const saved = await saveLevelCategory(editing ? Number(id) : null, input);
      await mutate(adminLevelKeys.categories);
      await mutate(adminLevelKeys.category(saved.id), saved, { revalidate: false });
      navigate(routePaths.adminLevelCategories);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) setErrors(caught.fieldErrors);
      else setFailure(caught instanceof Error ? caught.message : 'Opslaan is mislukt.');
      setSaving(false);
    }
  }

  return (
    <AdminLevelCategoryFormPageView
      key={data?.id ?? 'new'}
      editing={editing}
      category={editing ? data : undefined}
      loadFailed={editing && error !== undefined}
      saving={saving}
      errors={errors}
      failure={failure}
      onSave={save}
    />
  );
}

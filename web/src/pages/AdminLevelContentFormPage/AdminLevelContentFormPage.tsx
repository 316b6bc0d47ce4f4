import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useSWRConfig } from 'swr';
import { ApiError, type FieldErrors } from '../../api/client.ts';
import {
  adminLevelKeys,
  saveLevelContent,
  useLevelCategories,
  useLevelContent,
  type LevelContentInput,
} from '../../api/queries/adminLevels.ts';
import { routePaths } from '../../routePaths.ts';
import { AdminLevelContentFormPageView } from './AdminLevelContentFormPageView.tsx';
import { CoursesEditor } from './CoursesEditor/CoursesEditor.tsx';
import '../../styles/admin-levels.css';

/**
 * /admin/levels/content/create and /admin/levels/content/{id}: the content form of spec §2, and
 * on the edit page the content's courses with texts and files (beyond the spec).
 */
export function AdminLevelContentFormPage() {
  const { id } = useParams<{ id: string }>();
  const editing = id !== undefined;
  const content = useLevelContent(editing ? id : undefined);
  const categories = useLevelCategories();
  const navigate = useNavigate();
  const { mutate } = useSWRConfig();
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);

  async function save(input: LevelContentInput) {
    setSaving(true);
    setErrors({});
    setFailure(null);
    try {
      const saved = await saveLevelContent(editing ? Number(id) : null, input);
      await mutate(adminLevelKeys.contents);
      await mutate(adminLevelKeys.content(saved.id), saved, { revalidate: false });
      navigate(routePaths.adminLevelContent);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) setErrors(caught.fieldErrors);
      else setFailure(caught instanceof Error ? caught.message : 'Opslaan is mislukt.');
      setSaving(false);
    }
  }

  return (
    <div className="page admin-page">
      <AdminLevelContentFormPageView
        key={content.data?.id ?? 'new'}
        editing={editing}
        content={editing ? content.data : undefined}
        categories={categories.data}
        loadFailed={(editing && content.error !== undefined) || categories.error !== undefined}
        saving={saving}
        errors={errors}
        failure={failure}
        onSave={save}
      />
      {editing && content.data !== undefined && <CoursesEditor contentId={content.data.id} />}
    </div>
  );
}

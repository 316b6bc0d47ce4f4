import { useState } from 'react';
import { toggleLicenseApproval, useAdminLicenses } from '../../api/queries/licenses.ts';
import { AdminLicensesPageView } from './AdminLicensesPageView.tsx';

/** /admin/licenses: every licence request with its approve tick (spec §2 "Licences"). */
export function AdminLicensesPage() {
  const { data, error, isLoading, mutate } = useAdminLicenses();
  const [busyIds, setBusyIds] = useState<ReadonlySet<number>>(new Set());
  const [toggleError, setToggleError] = useState<string | null>(null);

  const toggle = async (id: number) => {
    setBusyIds((ids) => new Set(ids).add(id));
    setToggleError(null);
    try {
      const updated = await toggleLicenseApproval(id);
      await mutate((list) => list?.map((license) => (license.id === updated.id ? updated : license)), { revalidate: false });
    } catch {
      setToggleError('Het goedkeuren is niet gelukt. Probeer het opnieuw.');
      await mutate();
    } finally {
      setBusyIds((ids) => {
        const next = new Set(ids);
        next.delete(id);
        return next;
      });
    }
  };

  return (
    <AdminLicensesPageView
      licenses={data}
      loading={isLoading}
      failed={error !== undefined && data === undefined}
      busyIds={busyIds}
      toggleError={toggleError}
      onToggle={(id) => void toggle(id)}
    />
  );
}

import type { AdminLicense } from '../../api/queries/licenses.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import '../../styles/licenses-and-introducees.css';

/** Table Omschrijving, Licentie, Student/docent, with an approve tick per row (spec §2). */
export function AdminLicensesPageView({
  licenses,
  loading,
  failed,
  busyIds,
  toggleError,
  onToggle,
}: {
  licenses: AdminLicense[] | undefined;
  loading: boolean;
  failed: boolean;
  /** Licences whose tick is on its way to the server. */
  busyIds: ReadonlySet<number>;
  toggleError: string | null;
  onToggle: (id: number) => void;
}) {
  const pending = licenses?.filter((license) => !license.approved).length ?? 0;
  return (
    <div className="page admin-page admin-licenses-page">
      <header className="admin-page-header">
        <h1>Licenties</h1>
      </header>
      <AsyncContent
        data={licenses}
        failed={failed}
        loading={loading}
        errorText="De licenties konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Licenties laden…"
        empty="Er zijn nog geen licenties aangevraagd."
      >
        {(licenses) => (
          <>
            <p className="admin-lead" data-testid="licenses-pending">
              {pending === 0
                ? 'Alle aanvragen zijn goedgekeurd.'
                : `${pending} ${pending === 1 ? 'aanvraag wacht' : 'aanvragen wachten'} op goedkeuring. Vink een licentie aan om hem goed te keuren.`}
            </p>
            {toggleError !== null && (
              <p className="card error-text" role="alert">
                {toggleError}
              </p>
            )}
            <DataTable
              columns={[
                { header: 'Omschrijving' },
                { header: 'Licentie' },
                { header: 'Student/docent' },
                { header: 'Goedgekeurd', className: 'license-tick-column' },
              ]}
              rows={licenses}
              className="licenses-table"
              testId="admin-licenses"
              renderRow={(license) => (
                <tr key={license.id} data-testid="admin-license-row" className={license.approved ? 'license-approved' : undefined}>
                  <td className="license-description">{license.description}</td>
                  <td data-label="Licentie">
                    <span className="license-name">{license.license}</span>
                  </td>
                  <td data-label="Student/docent">{license.user.name}</td>
                  <td className="license-tick-column">
                    <label className="license-tick">
                      <input
                        type="checkbox"
                        checked={license.approved}
                        disabled={busyIds.has(license.id)}
                        aria-label={`Licentie ${license.license} van ${license.user.name} goedkeuren`}
                        onChange={() => onToggle(license.id)}
                      />
                      <span className="license-tick-text">{license.approved ? 'Ja' : 'Nee'}</span>
                    </label>
                  </td>
                </tr>
              )}
            />
          </>
        )}
      </AsyncContent>
    </div>
  );
}

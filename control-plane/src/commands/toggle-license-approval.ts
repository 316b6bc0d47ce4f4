import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound } from '../errors.ts';
import { License } from '../models/License.ts';
import type { LicenseRow } from '../queries/licenses.ts';
import { licenseRow } from '../queries/licenses.ts';

const NOT_FOUND_MESSAGE = 'Deze licentie bestaat niet.';

const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/**
 * The admin's tick: approves a pending licence, or revokes an approved one, with its audit entry
 * (license.approve / license.revoke). Unknown id → 404. Answers the licence after the change.
 */
export async function toggleLicenseApproval(knex: Knex, adminId: number, id: number): Promise<LicenseRow> {
  return knex.transaction(async (trx) => {
    // Locked, so two ticks at once toggle twice instead of both reading the same state.
    const current = await License.query(trx).findById(id).forUpdate().select('id', 'approved_at', 'approved_by');
    if (!current) throw notFound(NOT_FOUND_MESSAGE);
    const approve = current.approved_at === null;
    await License.query(trx)
      .findById(id)
      .patch(approve ? { approved_at: trx.fn.now(), approved_by: adminId } : { approved_at: null, approved_by: null });
    const row = await licenseRow(trx, id);
    if (!row) throw notFound(NOT_FOUND_MESSAGE);
    await recordAudit(trx, {
      actorId: adminId,
      action: approve ? 'license.approve' : 'license.revoke',
      subjectType: 'license',
      subjectId: id,
      before: { approved_at: isoOrNull(current.approved_at), approved_by: current.approved_by },
      after: { approved_at: isoOrNull(row.approved_at), approved_by: approve ? adminId : null },
    });
    return row;
  });
}

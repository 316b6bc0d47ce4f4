import type { Knex } from 'knex';
import type { PartialModelObject } from 'objection';
import type { VerifiedIdentity } from './id-token.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { slugifyName } from '../lib/slugify-name.ts';
import { User } from '../models/User.ts';
import { ADMIN_STATE_COLUMNS, adminStateSnapshot } from '../queries/admins.ts';

/** The profile slug of a name; a name with no usable letters still gets a slug. */
export function slugify(name: string): string {
  return slugifyName(name) || 'gebruiker';
}

/** The sign-in cannot be given an account: the address belongs to another school login. */
export class AccountLinkRefused extends Error {}

/** Whether another account than `exceptId` holds this (lowercased) address. */
async function emailTaken(trx: Knex.Transaction, email: string, exceptId?: number): Promise<boolean> {
  const query = User.query(trx).whereRaw('lower(email) = ?', [email]);
  if (exceptId !== undefined) query.whereNot('id', exceptId);
  return (await query.first().select('id')) !== undefined;
}

/**
 * Finds the user of a verified identity: first by issuer+subject; else by e-mail (a school
 * imports its students by e-mail, and the first sign-in links the account) when the provider
 * vouches for that e-mail; else creates a new, not yet activated user.
 *
 * A new user whose address is in `initialAdminEmails` (INITIAL_ADMIN_EMAILS, lowercased) and
 * verified by the provider is created as an activated admin, with an audit entry (user.admin, no
 * actor, reason INITIAL_ADMIN_EMAILS). DECISION: only when the account is created here, at its
 * first sign-in. A later sign-in never promotes, so an initial admin another admin demotes stays
 * demoted, and an account that already existed (made by `devplein admin create`, or imported by
 * e-mail and linked below) keeps the flags it has. An unverified address gets nothing extra:
 * anyone can claim an address at a provider that does not check it.
 */
export async function upsertUserFromIdentity(
  knex: Knex,
  identity: VerifiedIdentity,
  options: { initialAdminEmails?: readonly string[] } = {},
): Promise<number> {
  return knex.transaction(async (trx) => {
    const bySubject = await User.query(trx).findOne({ oidc_issuer: identity.issuer, oidc_subject: identity.subject }).select('id');
    const email = identity.email?.toLowerCase() ?? null;
    const name = identity.name?.trim() || email?.split('@')[0] || 'Onbekend';
    if (bySubject) {
      // Through the model: its hook sets updated_at (and keeps the e-mail lowercased).
      const changes: PartialModelObject<User> = {};
      // A new address another account holds is not taken over: the login keeps its own.
      if (email && identity.emailVerified && !(await emailTaken(trx, email, bySubject.id))) changes.email = email;
      if (identity.name) Object.assign(changes, { name, name_slug: slugify(name) });
      await User.query(trx).findById(bySubject.id).patch(changes);
      return bySubject.id;
    }
    if (email && identity.emailVerified) {
      const byEmail = await User.query(trx).whereRaw('lower(email) = ?', [email]).first().select('id', 'oidc_subject');
      if (byEmail && byEmail.oidc_subject === null) {
        await User.query(trx).findById(byEmail.id).patch({ oidc_issuer: identity.issuer, oidc_subject: identity.subject });
        return byEmail.id;
      }
      if (byEmail) throw new AccountLinkRefused('this e-mail address is linked to another school account');
    }
    // An address the provider does not vouch for is never linked, and when another account holds
    // it (a student imported by address, with a provider such as Entra ID that never vouches) the
    // new account waits for a teacher under a placeholder address instead of failing.
    const address = email && (identity.emailVerified || !(await emailTaken(trx, email))) ? email : null;
    const initialAdmin = email !== null && identity.emailVerified && (options.initialAdminEmails ?? []).includes(email);
    // Through the model: its insert hook keeps the e-mail lowercased.
    const created = await User.query(trx)
      .insert({
        name,
        name_slug: slugify(name),
        email: address ?? `${identity.subject}@onbekend.invalid`,
        email_verified_at: initialAdmin ? trx.fn.now() : null,
        admin: initialAdmin,
        developer: false,
        oidc_issuer: identity.issuer,
        oidc_subject: identity.subject,
      })
      .returning([...ADMIN_STATE_COLUMNS]);
    if (initialAdmin) {
      await recordAudit(trx, {
        actorId: null,
        action: 'user.admin',
        subjectType: 'user',
        subjectId: created.id,
        before: null,
        after: { ...adminStateSnapshot(created), reason: 'INITIAL_ADMIN_EMAILS' },
      });
    }
    return created.id;
  });
}

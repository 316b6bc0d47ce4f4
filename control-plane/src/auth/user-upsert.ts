import type { Knex } from 'knex';
import type { PartialModelObject } from 'objection';
import type { VerifiedIdentity } from './id-token.ts';
import { slugifyName } from '../lib/slugify-name.ts';
import { User } from '../models/User.ts';

/** The profile slug of a name; a name with no usable letters still gets a slug. */
export function slugify(name: string): string {
  return slugifyName(name) || 'gebruiker';
}

/**
 * Finds the user of a verified identity: first by issuer+subject; else by e-mail (a school
 * imports its students by e-mail, and the first sign-in links the account) when the provider
 * vouches for that e-mail; else creates a new, not yet activated user.
 */
export async function upsertUserFromIdentity(knex: Knex, identity: VerifiedIdentity): Promise<number> {
  return knex.transaction(async (trx) => {
    const bySubject = await User.query(trx).findOne({ oidc_issuer: identity.issuer, oidc_subject: identity.subject }).select('id');
    const email = identity.email?.toLowerCase() ?? null;
    const name = identity.name?.trim() || email?.split('@')[0] || 'Onbekend';
    if (bySubject) {
      // Through the model: its hook sets updated_at (and keeps the e-mail lowercased).
      const changes: PartialModelObject<User> = {};
      if (email && identity.emailVerified) changes.email = email;
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
      if (byEmail) throw new Error('this e-mail address is linked to another school account');
    }
    // Through the model: its insert hook keeps the e-mail lowercased.
    const created = await User.query(trx).insert({
      name,
      name_slug: slugify(name),
      email: email ?? `${identity.subject}@onbekend.invalid`,
      email_verified_at: null,
      admin: false,
      developer: false,
      oidc_issuer: identity.issuer,
      oidc_subject: identity.subject,
    });
    return created.id;
  });
}

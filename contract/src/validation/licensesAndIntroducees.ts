/*
 * Input rules of licence requests and introducees ('meelopers'), shared by the web forms and the
 * control plane (one definition). Pure TypeScript: no DOM, no Node APIs.
 */

/** What the licence is for (the user's reason): 5..500 characters after trimming. */
export const LICENSE_DESCRIPTION_MIN = 5;
export const LICENSE_DESCRIPTION_MAX = 500;
/** Which licence (e.g. 'JetBrains', 'Adobe Creative Cloud'): 2..100 characters after trimming. */
export const LICENSE_NAME_MIN = 2;
export const LICENSE_NAME_MAX = 100;

/** Answer of DELETE /api/user/licenses/{id} for an approved request. */
export const LICENSE_ALREADY_APPROVED_MESSAGE = 'Deze licentie is al goedgekeurd en kan niet meer worden ingetrokken.';

/**
 * An introducee's name becomes a host name (`{name}.{site domain}`) and, without its first three
 * characters, a git user name: lowercase letter first, then 3..30 lowercase letters, digits or hyphens.
 */
export const INTRODUCEE_NAME_PATTERN = /^[a-z][a-z0-9-]{3,30}$/;

/** The git user name of an introducee: the name without its first three characters (spec §2). */
export function introduceeGitUsername(name: string): string {
  return name.slice(3);
}

/**
 * Dutch messages for an introducee name, [] when it is fine. Beyond the pattern: a host name label
 * may not end with a hyphen, and a git user name may not start with one (it would read as an option).
 */
export function introduceeNameProblems(name: string): string[] {
  if (name.length === 0) return ['Vul een naam in.'];
  if (name.length < 4) return ['De naam moet minimaal 4 tekens lang zijn.'];
  if (name.length > 31) return ['De naam mag maximaal 31 tekens lang zijn.'];
  if (!INTRODUCEE_NAME_PATTERN.test(name)) {
    return ['Gebruik alleen kleine letters, cijfers en streepjes, en begin met een letter.'];
  }
  if (name.endsWith('-')) return ['De naam mag niet eindigen op een streepje.'];
  if (introduceeGitUsername(name).startsWith('-')) {
    return ['Het vierde teken mag geen streepje zijn: de gitgebruikersnaam begint daar.'];
  }
  return [];
}

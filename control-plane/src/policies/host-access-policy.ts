/** The flags that decide what a user may have on the dev servers. */
export interface AccessFlags {
  developer: boolean;
  email_verified_at: Date | string | null;
  disabled_at: Date | string | null;
}

/**
 * Whether a user may have host access: database accounts that log in, a VPN peer, SSH keys in
 * their projects' containers. Spec §6 gives those to developers; an account that is not
 * activated or is disabled has none (the same rule as isDeveloper for a signed-in user).
 */
export const mayHaveHostAccess = (user: AccessFlags): boolean => user.developer && user.email_verified_at !== null && user.disabled_at === null;

/** The developer tools' JSON as the control plane sends it and the web app reads it: SSH keys, VPN configurations, databases, licenses, introducees. */
import { z } from 'zod';

/** One key of GET/POST/DELETE /api/user/ssh_keys (spec §3: id, name, keyHash; plus type and bits for the list line). */
export const sshKeyJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  /** 'SHA256:…' as `ssh-keygen -l -E sha256` prints it. */
  keyHash: z.string(),
  /** RSA, ECDSA, ED25519 or DSA: the bracketed type of `ssh-keygen -l`. */
  type: z.string(),
  bits: z.number().int(),
  createdAt: z.iso.datetime({ offset: true }),
});
export type SshKeyJson = z.infer<typeof sshKeyJson>;

/** GET /api/vpn: the user's configuration (spec §3: the identifier used in the download path). */
export const vpnConfigJson = z.strictObject({
  identifier: z.string(),
  /** The peer's tunnel address as the agent handed it out, CIDR (e.g. `10.8.0.2/32`). */
  address: z.string(),
  createdAt: z.string(),
});
export type VpnConfigJson = z.infer<typeof vpnConfigJson>;

/** One licence of the holder's own list (GET/POST/DELETE /api/user/licenses). */
export const ownLicenseJson = z.strictObject({
  id: z.number().int(),
  description: z.string(),
  license: z.string(),
  approved: z.boolean(),
  approved_at: z.iso.datetime({ offset: true }).nullable(),
  created_at: z.iso.datetime({ offset: true }),
});
export type OwnLicenseJson = z.infer<typeof ownLicenseJson>;

/** One licence of GET /api/admin/licenses and PUT /api/admin/licenses/{id} (spec §3: id, description, license, user). */
export const adminLicenseJson = z.strictObject({
  ...ownLicenseJson.shape,
  user: z.strictObject({ id: z.number().int(), name: z.string() }),
});
export type AdminLicenseJson = z.infer<typeof adminLicenseJson>;

/** One introducee ('meeloper') of GET/POST/DELETE /api/admin/introduction, for admins only. */
export const introduceeJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  /** `{name}.{site domain}` (spec §2). */
  domain: z.string(),
  /** The name without its first three characters (spec §2). */
  git_username: z.string(),
  /** The opened (plain) git password: admins hand it to the introducee. */
  git_password: z.string(),
  created_at: z.iso.datetime({ offset: true }),
});
export type IntroduceeJson = z.infer<typeof introduceeJson>;

/** One database of GET/POST/DELETE /api/user/databases (spec §3: id, name, user, password; plus host). */
export const databaseJson = z.strictObject({
  id: z.number().int(),
  /** `u{userId}_{suffix}`. */
  name: z.string(),
  /** The account, named like the database. */
  user: z.string(),
  /** The opened (plain) password: this list only ever goes to the databases' owner. */
  password: z.string(),
  /** Where its MariaDB listens inside the VPN (its dev server's address; beyond the spec). */
  host: z.string(),
  /** The port there (3306 on a dev server, spec §9; `npm start`'s own MariaDB has another; beyond the spec). */
  port: z.number().int(),
});
export type DatabaseJson = z.infer<typeof databaseJson>;

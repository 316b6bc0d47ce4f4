/*
 * The SSH key format rule of spec §5, shared by the web form and the control plane (one definition).
 * Pure TypeScript: no DOM, no Node APIs.
 */

/** The key types of spec §5, each with the base64 of its wire-format header (length + type name). */
export const SSH_KEY_TYPES = [
  { type: 'ssh-rsa', prefix: 'AAAAB3NzaC1yc2E', label: 'RSA' },
  { type: 'ecdsa-sha2-nistp256', prefix: 'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY', label: 'ECDSA' },
  { type: 'ecdsa-sha2-nistp384', prefix: 'AAAAE2VjZHNhLXNoYTItbmlzdHAzODQ', label: 'ECDSA' },
  { type: 'ecdsa-sha2-nistp521', prefix: 'AAAAE2VjZHNhLXNoYTItbmlzdHA1MjE', label: 'ECDSA' },
  { type: 'ssh-ed25519', prefix: 'AAAAC3NzaC1lZDI1NTE5', label: 'ED25519' },
  { type: 'ssh-dss', prefix: 'AAAAB3NzaC1kc3M', label: 'DSA' },
] as const;

export type SshKeyType = (typeof SSH_KEY_TYPES)[number]['type'];

/** Longest key text accepted (an RSA 16384-bit key is about 2.8 KB; this leaves room for long comments). */
export const SSH_KEY_MAX_LENGTH = 16_384;

/** Names of keys in the list: trimmed, 1..100 characters. */
export const SSH_KEY_NAME_MAX_LENGTH = 100;

/** Spec §8: what the form says about a key that does not pass the rule. */
export const INVALID_SSH_KEY_MESSAGE = 'Dit is geen geldige SSH key.';

/** Spec §8: the server's answer (HTTP 422) when the key is already stored, by anyone. */
export const DUPLICATE_SSH_KEY_MESSAGE = 'SshKey bestaat al.';

/** A key text split into its parts; `comment` is '' when there is none. */
export interface SshKeyText {
  type: SshKeyType;
  /** The base64 body, starting with the type's standard prefix. */
  body: string;
  comment: string;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * type, whitespace, the type's own prefix + base64 characters with up to 3 '=', then optionally
 * whitespace and a one-line comment. The pairing of type and prefix is part of the rule, so
 * "ssh-rsa AAAAC3NzaC1lZDI1NTE5..." is refused.
 */
const SSH_KEY_PATTERN = new RegExp(
  `^(${SSH_KEY_TYPES.map(({ type, prefix }) => `${escape(type)}[ \\t]+${prefix}`).join('|')})` +
    '[0-9A-Za-z+/]+={0,3}(?:[ \\t]+[^\\r\\n]*)?$',
);

/** Parses key text by the §5 rule (after trimming surrounding whitespace); null when it does not match. */
export function parseSshKeyText(text: string): SshKeyText | null {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > SSH_KEY_MAX_LENGTH) return null;
  if (!SSH_KEY_PATTERN.test(trimmed)) return null;
  const [type, body = '', ...rest] = trimmed.split(/[ \t]+/);
  const known = SSH_KEY_TYPES.find((entry) => entry.type === type);
  if (known === undefined) return null;
  return { type: known.type, body, comment: rest.join(' ') };
}

/** Spec §5: does the text pass the SSH key format rule? */
export function isValidSshKeyFormat(text: string): boolean {
  return parseSshKeyText(text) !== null;
}

/** Spec §5: the name is pre-filled from the comment, i.e. the third word of the key text ('' when none). */
export function sshKeyNameFromText(text: string): string {
  const words = text.trim().split(/\s+/);
  return (words[2] ?? '').slice(0, SSH_KEY_NAME_MAX_LENGTH);
}

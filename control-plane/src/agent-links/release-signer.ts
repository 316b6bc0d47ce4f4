import { readFile } from 'node:fs/promises';

/** Where install.sh records the school's release signers (OpenSSH allowed_signers, deploy/release-trust.sh). */
export const RELEASE_SIGNERS_FILE = '/etc/devplein/release-signers';

const KEY_TYPES = 'ssh-ed25519|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521|ssh-rsa|sk-ssh-ed25519@openssh\\.com|sk-ecdsa-sha2-nistp256@openssh\\.com';
/** `<principal> [options] <type> <base64>`; the principal as install.sh's parse_signer accepts it (safe inside single quotes). */
const SIGNER_LINE = new RegExp(`^([A-Za-z0-9._@+-]+)\\s+(?:\\S+\\s+)*?(${KEY_TYPES})\\s+([A-Za-z0-9+/]+={0,2})(?:\\s|$)`);

/**
 * The first release signer recorded on this server, as `install.sh --signer` takes it
 * ('<principal> <type> <base64>'), or undefined when there is none (a development machine, a
 * school's own unsigned build). Never throws: the join command is then shown without it.
 */
export async function readReleaseSigner(file = RELEASE_SIGNERS_FILE): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const match = SIGNER_LINE.exec(line.trim());
    if (match) return `${match[1]} ${match[2]} ${match[3]}`;
  }
  return undefined;
}

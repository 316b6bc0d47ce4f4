import { readFile } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { agentCaKeyPath, agentCertificatePaths } from '../agent/link-certificates.ts';
import { certificateFingerprint } from './agent-certificate.ts';

/**
 * What joining needs from the machine: the link CA's certificate (AGENT_TLS_CA) and its key
 * (AGENT_CA_KEY_FILE). Read per use, so a key put in place (or taken away) needs no restart.
 */
export interface JoinAuthority {
  caCertPem: string;
  caKeyPem: string;
  /** sha256 of the CA certificate, hex: the part of the join string the new server checks the CA against. */
  caFingerprint: string;
}

/** Joining is off (no CA key configured or readable); `message` is Dutch. */
export class JoinUnavailable extends Error {}

export async function loadJoinAuthority(config: Pick<Config, 'AGENT_CA_KEY_FILE' | 'AGENT_TLS_CA' | 'AGENT_TLS_CERT' | 'AGENT_TLS_KEY' | 'DATA_DIR' | 'NODE_ENV'>): Promise<JoinAuthority> {
  const caPath = agentCertificatePaths(config)?.ca;
  const keyPath = agentCaKeyPath(config);
  if (!caPath || !keyPath) throw new JoinUnavailable('Koppelen staat uit: stel AGENT_TLS_CA en AGENT_CA_KEY_FILE in (docs/operations.md, "Een ontwikkelserver toevoegen").');
  try {
    const [caCertPem, caKeyPem] = await Promise.all([readFile(caPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { caCertPem, caKeyPem, caFingerprint: certificateFingerprint(caCertPem) };
  } catch (error) {
    throw new JoinUnavailable(`Koppelen staat uit: de CA van de agentverbinding is niet te lezen (${(error as Error).message}).`);
  }
}

/** `<app url>#<token>.<ca sha256>`: all a new dev server needs (install.sh agent --join). */
export function joinString(appUrl: string, token: string, caFingerprint: string): string {
  return `${appUrl.replace(/\/$/, '')}#${token}.${caFingerprint}`;
}

/**
 * What the sysadmin runs on the new server: `--join -` makes install.sh ask for the join string
 * (pasted, not echoed), so the one-time token is on no command line (/proc/<pid>/cmdline is
 * readable by every local user while the install runs). With this server's release signer
 * (readReleaseSigner), the new server checks the bundle against the same signer.
 */
export function joinCommand(releaseSigner?: string): string {
  return `sudo ./install.sh agent${releaseSigner ? ` --signer '${releaseSigner}'` : ''} --join -`;
}

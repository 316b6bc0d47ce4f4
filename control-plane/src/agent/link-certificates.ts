import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';

/** Where the control plane's mTLS files for its agent links are. */
export interface AgentCertificatePaths {
  ca: string;
  cert: string;
  key: string;
}

/**
 * The agent links' mTLS files: the configured paths (AGENT_TLS_CA/CERT/KEY), or outside
 * production the development certificates `npm start` makes in DATA_DIR/certs. null when a
 * path is missing (production without the settings).
 */
export function agentCertificatePaths(config: Pick<Config, 'AGENT_TLS_CA' | 'AGENT_TLS_CERT' | 'AGENT_TLS_KEY' | 'DATA_DIR' | 'NODE_ENV'>): AgentCertificatePaths | null {
  const devDir = path.join(config.DATA_DIR, 'certs');
  const development = config.NODE_ENV !== 'production';
  const ca = config.AGENT_TLS_CA ?? (development ? path.join(devDir, 'ca.pem') : undefined);
  const cert = config.AGENT_TLS_CERT ?? (development ? path.join(devDir, 'control-plane.pem') : undefined);
  const key = config.AGENT_TLS_KEY ?? (development ? path.join(devDir, 'control-plane-key.pem') : undefined);
  return ca && cert && key ? { ca, cert, key } : null;
}

/** The end of the first certificate in a PEM file, or why it could not be read. */
export async function certificateEnd(file: string): Promise<{ notAfter: Date | null; detail: string }> {
  try {
    const certificate = new X509Certificate(await readFile(file));
    return { notAfter: new Date(certificate.validTo), detail: certificate.subject.replace(/\n/g, ', ') };
  } catch (error) {
    return { notAfter: null, detail: `${file} niet te lezen (${(error as Error).message})` };
  }
}

/** The link CA's key file that signs joining agents (AGENT_CA_KEY_FILE; outside production the development CA's). */
export function agentCaKeyPath(config: Pick<Config, 'AGENT_CA_KEY_FILE' | 'DATA_DIR' | 'NODE_ENV'>): string | null {
  return config.AGENT_CA_KEY_FILE ?? (config.NODE_ENV !== 'production' ? path.join(config.DATA_DIR, 'certs', 'ca-key.pem') : null);
}

import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import { chown, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { writeFileAtomic } from '../atomic-file.ts';

/*
 * `devplein agent renew` on a joined dev server (issue 21): renews the agent's certificate
 * without a new invitation while the current one is still valid. A new EC P-256 key is made
 * here (it never travels), with a CSR; the request carries the current certificate and a
 * signature with the CURRENT key over the CSR and the time (control-plane
 * agent-links/renewal-proof.ts checks it against the pinned fingerprint). The answer is checked
 * (the same CA, the same name, the new key) and only then installed over agent.pem and
 * agent-key.pem, owner and mode kept. The agent uses it after a restart (--restart does that);
 * until then the control plane still accepts the old certificate, and once it has seen the
 * agent with the new one it accepts the old one no more, not even to renew (issue 35). The old
 * pair is kept beside the new one until the restart succeeded; then the old key is removed, so
 * no copy of it outlives the rotation on this server.
 *
 * Without --force it does nothing while more than --days (30) days are left: the nightly timer
 * (devplein-agent-renew.timer) runs it with --restart. Exit codes: 0 done or not due, 1 failed
 * (unreachable, a bad answer), 2 wrong arguments, 3 refused by the control plane.
 */

const USAGE = `Gebruik:
  devplein agent renew [--days N] [--force] [--restart] [--cert-dir MAP] [--url URL]
      Vernieuwt het certificaat van deze ontwikkelserver bij de control plane, zonder nieuwe uitnodiging,
      zodra er N dagen (standaard 30) of minder over zijn. --restart herstart daarna devplein-agent.
      MAP standaard /etc/devplein/agent; URL standaard uit MAP/control-plane-url (geschreven bij het koppelen).`;

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_REFUSED = 3;
const DAY_MS = 86_400_000;
const run = promisify(execFile);

class RenewFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILED,
  ) {
    super(message);
  }
}

/** The bytes signed with the current key; control-plane/src/agent-links/renewal-proof.ts makes the same. */
function renewalMessage(signedAt: string, csrPem: string): Buffer {
  const csrHash = createHash('sha256').update(csrPem.trim(), 'utf8').digest('hex');
  return Buffer.from(`devplein-agent-renew\n${signedAt}\n${csrHash}`, 'utf8');
}

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(USAGE);
  process.exit(EXIT_USAGE);
}

/** Writes `content` over `target` keeping its owner and mode. */
async function replaceKeeping(target: string, content: string): Promise<void> {
  const before = await stat(target);
  await writeFileAtomic(target, content, before.mode & 0o777);
  await chown(target, before.uid, before.gid);
}

async function renew(options: { certDir: string; url: string | undefined; days: number; force: boolean; restart: boolean }): Promise<void> {
  const certPath = path.join(options.certDir, 'agent.pem');
  const keyPath = path.join(options.certDir, 'agent-key.pem');
  const caPath = path.join(options.certDir, 'ca.pem');
  let currentPem: string;
  let currentKeyPem: string;
  let caPem: string;
  try {
    [currentPem, currentKeyPem, caPem] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8'), readFile(caPath, 'utf8')]);
  } catch (error) {
    throw new RenewFailure(`De certificaten van de agent zijn niet te lezen in ${options.certDir}: ${(error as Error).message}`);
  }
  const current = new X509Certificate(currentPem);
  const notAfter = new Date(current.validTo);
  const daysLeft = Math.floor((notAfter.getTime() - Date.now()) / DAY_MS);
  const subject = current.subject.replace(/^CN=/, '');
  if (notAfter.getTime() <= Date.now()) {
    throw new RenewFailure(`Het certificaat van ${subject} is verlopen (${notAfter.toISOString()}): vernieuwen kan niet meer, vraag een nieuwe uitnodiging (devplein agent invite op de control plane).`, EXIT_REFUSED);
  }
  if (!options.force && daysLeft > options.days) {
    console.log(`Het certificaat van ${subject} is nog ${daysLeft} dagen geldig (tot ${notAfter.toISOString()}); vernieuwen gebeurt vanaf ${options.days} dagen voor het einde.`);
    return;
  }
  const url = (options.url ?? (await readFile(path.join(options.certDir, 'control-plane-url'), 'utf8').catch(() => ''))).trim().replace(/\/$/, '');
  if (!/^https?:\/\//.test(url)) throw new RenewFailure(`Het adres van de control plane is onbekend: geef --url of zet het in ${path.join(options.certDir, 'control-plane-url')}.`, EXIT_USAGE);

  // The new key and its CSR (openssl, as install.sh agent --join makes them).
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const newKeyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplein-renew-'));
  let csrPem: string;
  try {
    await writeFile(path.join(work, 'key.pem'), newKeyPem, { mode: 0o600 });
    csrPem = (await run('openssl', ['req', '-new', '-key', path.join(work, 'key.pem'), '-subj', '/CN=devplein-agent-renew'])).stdout;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const signedAt = new Date().toISOString();
  const signature = sign('sha256', renewalMessage(signedAt, csrPem), createPrivateKey(currentKeyPem)).toString('base64');

  let response: Response;
  try {
    response = await fetch(`${url}/api/agents/renew`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ certificate: currentPem, csr: csrPem, signed_at: signedAt, signature }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw new RenewFailure(`De control plane op ${url} is niet bereikt (${(error as Error).message}). Het huidige certificaat blijft in gebruik.`);
  }
  const answer = (await response.json().catch(() => ({}))) as { certificate?: string; ca?: string; fingerprint?: string; notAfter?: string; message?: string; errors?: Record<string, string[]> };
  if (response.status !== 200) {
    const reason = answer.message ?? Object.values(answer.errors ?? {}).flat().join(' ') ?? '';
    throw new RenewFailure(`De control plane weigerde de vernieuwing (${response.status}): ${reason}`, response.status === 403 || response.status === 422 ? EXIT_REFUSED : EXIT_FAILED);
  }
  // Checked before anything is installed: the same CA, the same name, the key made here.
  if (!answer.certificate) throw new RenewFailure('Het antwoord bevat geen certificaat; er is niets veranderd.');
  const renewed = new X509Certificate(answer.certificate);
  const ca = new X509Certificate(caPem);
  if (!renewed.checkIssued(ca) || !renewed.verify(ca.publicKey)) throw new RenewFailure('Het nieuwe certificaat is niet van de CA van deze agent; er is niets veranderd.');
  if (renewed.subject !== current.subject) throw new RenewFailure(`Het nieuwe certificaat is voor ${renewed.subject}, niet voor ${current.subject}; er is niets veranderd.`);
  const spki = (pem: string) => createPublicKey(pem).export({ format: 'der', type: 'spki' });
  if (!renewed.publicKey.export({ format: 'der', type: 'spki' }).equals(spki(newKeyPem))) {
    throw new RenewFailure('Het nieuwe certificaat hoort niet bij de sleutel die hier is gemaakt; er is niets veranderd.');
  }
  // Each file is replaced atomically; the old pair stays beside them (agent.pem.old,
  // agent-key.pem.old) until the agent restarted on the new one, so a crash between the two
  // renames, or a restart that fails, can be undone by hand.
  const oldKeyPath = `${keyPath}.old`;
  await writeFile(`${certPath}.old`, currentPem, { mode: 0o644 });
  await writeFile(oldKeyPath, currentKeyPem, { mode: 0o600 });
  await replaceKeeping(keyPath, newKeyPem);
  await replaceKeeping(certPath, `${answer.certificate.trim()}\n`);
  console.log(`Certificaat van ${subject} vernieuwd: geldig tot ${new Date(renewed.validTo).toISOString()} (sha256 ${answer.fingerprint ?? ''}); de sleutel is hier gemaakt.`);
  if (options.restart) {
    await run('systemctl', ['restart', 'devplein-agent']).catch((error: Error) => {
      throw new RenewFailure(
        `Het certificaat staat klaar, maar devplein-agent herstartte niet (${error.message}). Herstart hem zelf: systemctl restart devplein-agent; verwijder daarna de oude sleutel: rm ${oldKeyPath}`,
      );
    });
    // The agent runs on the new pair: the old key has no use left here, and a copy of it must not survive the rotation.
    await rm(oldKeyPath, { force: true });
    console.log(`devplein-agent is herstart en gebruikt het nieuwe certificaat; de oude sleutel (${oldKeyPath}) is verwijderd.`);
  } else {
    console.log(
      `Herstart de agent om het te gebruiken: systemctl restart devplein-agent (tot dan aanvaardt de control plane het oude certificaat nog). Verwijder daarna de oude sleutel: rm ${oldKeyPath}`,
    );
  }
}

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    strict: true,
    options: {
      days: { type: 'string' },
      force: { type: 'boolean' },
      restart: { type: 'boolean' },
      'cert-dir': { type: 'string' },
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  usage((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
// `devplein agent renew …` passes the verb on.
const rest = positionals[0] === 'renew' ? positionals.slice(1) : positionals;
if (rest.length > 0) usage(`Onbekend argument: ${rest[0]}`);
const days = values.days === undefined ? 30 : Number(values.days);
if (!Number.isInteger(days) || days < 0 || days > 3650) usage('--days: geef een heel aantal dagen, bijvoorbeeld 30.');
try {
  await renew({ certDir: values['cert-dir'] ?? '/etc/devplein/agent', url: values.url, days, force: values.force === true, restart: values.restart === true });
} catch (error) {
  if (error instanceof RenewFailure) {
    console.error(`Niet gedaan: ${error.message}`);
    process.exitCode = error.exitCode;
  } else {
    console.error(`Mislukt: ${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)}`);
    if (process.env.DEVPLEIN_DEBUG) console.error(error);
    process.exitCode = EXIT_FAILED;
  }
}

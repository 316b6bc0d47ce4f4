/**
 * What a student's site needs on a test server (tests/support/stacks/debian-machine.ts) that cannot
 * reach a registry or a git host outside: the static site image made there from Debian's static
 * busybox (`docker import`, as scripts/lib/busybox-image.ts makes it on a dev machine), and a
 * school git host there (`git daemon` as the transient unit school-git.service, by name:
 * git.school.test in /etc/hosts) with a repository to deploy and push to.
 */
import path from 'node:path';
import type { DebianMachine } from '../stacks/debian-machine.ts';
import { shellWord } from './machine-http.ts';
import { waitFor } from './ports.ts';

/** The image of the test's 'Statische site' option: busybox httpd serving /www on port 80. */
export const MACHINE_STATIC_IMAGE = 'devplein/static:1';
/** The line the image writes to stdout when it starts (its log). */
export const MACHINE_STATIC_LOG_LINE = 'devplein static: serving /www on port 80';
/** The image's own index.html. */
export const MACHINE_STATIC_PAGE = 'devplein statische testpagina';

/** busybox-static installed (offline, from the fetched packages), then the image imported into the server's Docker engine. */
export async function importStaticImage(machine: DebianMachine): Promise<void> {
  const cmd = JSON.stringify(['/bin/sh', '-c', `echo '${MACHINE_STATIC_LOG_LINE}'; exec httpd -f -p 80 -h /www`]);
  const [repo, tag] = MACHINE_STATIC_IMAGE.split(':') as [string, string];
  await machine.ok(
    [
      'set -euo pipefail',
      'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends busybox-static >/dev/null',
      'rootfs=$(mktemp -d /root/static-image.XXXXXX)',
      'mkdir -p "$rootfs"/{bin,etc,tmp,www,home/student,root,proc,sys,dev}',
      'cp /bin/busybox "$rootfs/bin/busybox"',
      'for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"; done',
      `printf 'root:x:0:0:root:/root:/bin/sh\\nstudent:x:1000:1000:student:/home/student:/bin/sh\\n' > "$rootfs/etc/passwd"`,
      `printf 'root:x:0:\\nstudent:x:1000:\\n' > "$rootfs/etc/group"`,
      `echo ${shellWord(MACHINE_STATIC_PAGE)} > "$rootfs/www/index.html"`,
      'chmod 1777 "$rootfs/tmp"',
      // `docker import` through the engine's API: Debian 13's docker.io comes without the docker CLI (docker-cli).
      `tar -C "$rootfs" --owner=0 --group=0 -c . | curl -fsS --unix-socket /var/run/docker.sock -X POST -H 'Content-Type: application/x-tar' --data-binary @- ${shellWord(`http://localhost/images/create?fromSrc=-&repo=${repo}&tag=${tag}&changes=${encodeURIComponent(`CMD ${cmd}`)}`)} > "$rootfs.out"`,
      'if grep -q \'"error"\' "$rootfs.out"; then cat "$rootfs.out"; exit 1; fi',
      'rm -rf "$rootfs" "$rootfs.out"',
    ].join('\n'),
    300_000,
  );
}

/** What Docker's API answers for GET `path` on the server's engine (the socket, as the agent talks to it): status and JSON body. */
export async function dockerApi(machine: DebianMachine, apiPath: string): Promise<{ status: number; body: unknown }> {
  const result = await machine.ok(`curl -sS --unix-socket /var/run/docker.sock -w '\\n%{http_code}' ${shellWord(`http://localhost${apiPath}`)}`);
  const lines = result.trimEnd().split('\n');
  const text = lines.slice(0, -1).join('\n');
  return { status: Number(lines.at(-1)), body: text ? (JSON.parse(text) as unknown) : null };
}

/** A container's Docker state ('running', 'exited', …), or 'missing' when the engine has none of that name. */
export async function dockerContainerState(machine: DebianMachine, name: string): Promise<string> {
  const { status, body } = await dockerApi(machine, `/containers/${encodeURIComponent(name)}/json`);
  if (status === 404) return 'missing';
  return (body as { State?: { Status?: string } }).State?.Status ?? `unknown (${status})`;
}

export interface MachineGitHost {
  /** The git:// address of the repository (the request form's repository field). */
  url: string;
  /** A commit on main with `files` written, pushed to the host; its hash. */
  pushCommit(files: Record<string, string>, message: string): Promise<string>;
}

const GIT_HOST = 'git.school.test';
const WORK = '/root/klas-site';
const BARE = '/srv/git/klas/site.git';

/** `git daemon` on 127.0.0.1:9418 as git://git.school.test, serving one repository klas/site.git with a first commit of `files`. */
export async function startMachineGitHost(machine: DebianMachine, files: Record<string, string>): Promise<MachineGitHost> {
  await machine.ok(`grep -q ' ${GIT_HOST}$' /etc/hosts || echo '127.0.0.1 ${GIT_HOST}' >> /etc/hosts`);
  const git = 'git -c user.name=Docent -c user.email=docent@school.test';
  const pushCommit = async (commitFiles: Record<string, string>, message: string): Promise<string> => {
    const writes = Object.entries(commitFiles).map(([file, text]) => `mkdir -p "$(dirname ${shellWord(file)})" && printf '%s' ${shellWord(text)} > ${shellWord(file)}`);
    const out = await machine.ok([`cd ${WORK}`, ...writes, 'git add -A', `${git} commit -q -m ${shellWord(message)}`, `git push -q ${BARE} main`, 'git rev-parse HEAD'].join(' && '));
    return out.trim();
  };
  await machine.ok(`set -e; mkdir -p ${path.dirname(BARE)}; git init -q --bare -b main ${BARE}; git init -q -b main ${WORK}`);
  await pushCommit(files, 'eerste versie');
  await machine.ok(`systemd-run --unit=school-git git daemon --reuseaddr --export-all --base-path=/srv/git --listen=127.0.0.1 --port=9418 /srv/git`);
  const url = `git://${GIT_HOST}/klas/site.git`;
  await waitFor(async () => (await machine.run(`git ls-remote ${url}`)).code === 0, { description: `git daemon serving ${url}`, timeoutMs: 30_000, intervalMs: 200 });
  return { url, pushCommit };
}

/** What the site of `domain` answers through Caddy on port 80 (the server's own address, as a visitor's request arrives): status and body. */
export async function siteAnswer(machine: DebianMachine, domain: string): Promise<{ status: number; body: string }> {
  const result = await machine.run(`curl -sS --max-time 10 -H ${shellWord(`Host: ${domain}`)} -w '\\n%{http_code}' http://127.0.0.1/`);
  const lines = result.output.split('\n');
  return { status: Number(lines.at(-1)), body: lines.slice(0, -1).join('\n') };
}

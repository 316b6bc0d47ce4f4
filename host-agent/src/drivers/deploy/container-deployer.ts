/**
 * Puts a fetched checkout into a running managed container and swaps it in (issue 23, part 2).
 *
 * 1. leftovers of an earlier, killed deploy are cleaned (a web root missing with a
 *    `<webRoot>.devplein-prev-*` beside it is renamed back first);
 * 2. the tree goes with putArchive into `<webRoot>.devplein-next-<id>`, owned by the web user;
 * 3. with a build step, the build command runs in it as the web user (time limit, output capped,
 *    each line a progress event; non-zero or over time: the old site stays), and the build's
 *    output folder then replaces the staging folder (copied by the engine, owners kept);
 * 4. the keep paths that exist in the current web root are copied into it by the engine
 *    (getArchive, putArchive: owners and modes kept);
 * 5. the after-update command runs in it as the web user (time limit, output capped, each line a
 *    progress event); a non-zero exit removes the staging folder and keeps the old site;
 * 6. one `sh -c` renames the web root to `<webRoot>.devplein-prev-<id>` and the staging folder to
 *    the web root (`mv -T`, two renames); the container restarts when its server worked in the old
 *    folder; the previous folder is removed after the answer, before the container's next deploy.
 *
 * The web user is the image's `student` account (from /etc/passwd, as for the SSH keys): the
 * account a student works as over SSH, so deployed files and files they edit have one owner.
 *
 * The agent's containers drop every capability (no CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH or
 * CAP_FOWNER): root in the container may rename entries of the root-owned parent folder but may
 * neither write in nor read the web user's folders. So copies go through the Docker engine,
 * removals run twice (the web user empties, root removes the rest), and the renames stay in the
 * web root's parent.
 */
import { randomBytes } from 'node:crypto';
import tar from 'tar-stream';
import type { Readable } from 'node:stream';
import { LABELS } from '../docker/docker-driver.ts';
import { passwdEntry, readContainerEntry, SSH_USER } from '../docker/container-files.ts';
import type { DockerEngine, EngineContainer } from '../docker/engine.ts';
import { checkKeepPath, checkWebRoot, DeployError, packTree, planTree, type SkippedEntry, type TreeOwner } from './tree-archive.ts';

export { DeployError } from './tree-archive.ts';

export interface DeploySettings {
  /** Absolute folder in the container (the image option's web root). */
  webRoot: string;
  /** One-line shell command run in the new tree before the swap (none: skipped). */
  afterUpdate?: string | null;
  /** Paths relative to the web root that survive a deploy. */
  keepPaths?: string[];
  /** Build step (both or neither): a one-line command run in the new tree, and the folder of the tree whose contents become the site. */
  buildCommand?: string | null;
  buildOutput?: string | null;
}

export type DeployProgress =
  | { step: 'cleaning'; removed: number }
  | { step: 'copying'; files: number; bytes: number; skipped: SkippedEntry[] }
  | { step: 'building'; line: string }
  | { step: 'built'; output: string }
  | { step: 'keeping'; kept: string[] }
  | { step: 'after-update'; line: string }
  | { step: 'swapping' }
  | { step: 'restarting'; holders: string[] };

export interface DeployRequest {
  containerId: string;
  checkoutDir: string;
  settings: DeploySettings;
  onProgress?: (event: DeployProgress) => void;
  /** A cancelled deploy stops before the swap (the old site stays). */
  signal?: AbortSignal;
}

export interface DeployResult {
  files: number;
  bytes: number;
  durationMs: number;
  kept: string[];
  skipped: SkippedEntry[];
  /** Processes (pid and name) that worked in the previous web root after the swap. */
  heldOldRoot: string[];
  /** Whether the container was restarted because of them. */
  restarted: boolean;
}

export interface ContainerDeployerOptions {
  docker: DockerEngine;
  maxFiles?: number;
  maxBytes?: number;
  afterUpdateTimeoutMs?: number;
  /** Output of the after-update command kept and streamed, in bytes. */
  afterUpdateOutputBytes?: number;
  /** Time limit of the build command (default: afterUpdateTimeoutMs, else 300 s); its output is capped like the after-update's. */
  buildTimeoutMs?: number;
  /** Called before the swap; a test stops a deploy here (never resolves) like a killed agent. */
  beforeSwap?: () => Promise<void>;
  /**
   * When a process still works in the previous web root after the swap (busybox httpd's `-h`):
   * 'restart' restarts the container so the server starts in the new tree; 'report' only lists
   * them in the result (default 'restart').
   */
  heldOldRoot?: 'restart' | 'report';
  /** Time limit of the agent's own execs (cleanup, keep, swap). */
  execTimeoutMs?: number;
  /** The previous tree could not be removed after a deploy (the next deploy's cleaning tries again). */
  onCleanupFailed?: (error: unknown) => void;
}

interface ExecOutcome {
  exitCode: number;
  output: string;
  timedOut: boolean;
  truncated: boolean;
  cancelled: boolean;
}

const CLEAN_SCRIPT = `root="$1"
if [ ! -e "$root" ]; then
  for prev in "$root".devplein-prev-*; do
    if [ -d "$prev" ]; then mv -T "$prev" "$root"; break; fi
  done
fi
for old in "$root".devplein-next-* "$root".devplein-build-* "$root".devplein-prev-*; do
  if [ -e "$old" ]; then echo "$old"; fi
done`;

/** The keep paths that exist in the current web root (their folder inside it), one a line; reads only. */
const KEEP_SCRIPT = `root="$1"; shift
real="$(realpath "$root")" || exit 0
for p; do
  [ -e "$root/$p" ] || [ -L "$root/$p" ] || continue
  parent="$(realpath "$root/$(dirname "$p")")" || continue
  case "$parent" in "$real"|"$real"/*) ;; *) continue ;; esac
  echo "$p"
done`;

/** Makes room in the new tree for the kept paths (as the web user, whose tree it is). */
const KEEP_ROOM_SCRIPT = `next="$1"; shift
for p; do rm -rf "$next/$p"; mkdir -p "$next/$(dirname "$p")"; done`;

/** Printed between the holders and the swap's own output (the two run in one exec). */
const SWAP_MARK = '--devplein-swap--';

/**
 * One exec, two steps. First the processes whose working folder is the current web root (by
 * device and inode), or a web root an earlier swap removed (a deploy that only reported them):
 * busybox httpd chdirs into its home once at start and serves relative paths, so after a swap it
 * keeps serving the old, removed folder. They are looked up before the renames: in overlayfs a
 * renamed folder of the image's layer gets a new inode, while the server's cwd stays the old one.
 * Then the swap: the web root to `$2`, the staging folder `$3` to the web root (`mv -T`).
 */
const HOLDERS_THEN_SWAP_SCRIPT = `holders() {
  old="$(stat -c %d:%i "$1")" || return 0
  for p in /proc/[0-9]*; do
    held=no
    [ "$(stat -L -c %d:%i "$p/cwd" 2>/dev/null)" = "$old" ] && held=yes
    case "$(readlink "$p/cwd" 2>/dev/null)" in "$1 (deleted)"|"$1/"*" (deleted)"|"$1".devplein-prev-*) held=yes ;; esac
    [ "$held" = yes ] && echo "\${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
  done
  return 0
}
holders "$1"
echo ${SWAP_MARK}
if [ -e "$1" ]; then mv -T "$1" "$2" || exit 1; fi
mv -T "$3" "$1"`;

/**
 * Whether the build's output (`$2`, relative to the staging folder `$1`) is a real folder inside
 * the tree: prints ok, missing, outside or not-a-folder. Run as the web user (its own files).
 */
const BUILD_OUTPUT_SCRIPT = `real="$(realpath "$1")" || { echo missing; exit 0; }
target="$(realpath "$1/$2" 2>/dev/null)" || { echo missing; exit 0; }
case "$target" in "$real"/*) ;; *) echo outside; exit 0 ;; esac
if [ -L "$1/$2" ] || [ ! -d "$target" ]; then echo not-a-folder; exit 0; fi
echo ok`;

/** Kills the processes working in the staging folder (an after-update command over its time). */
const KILL_SCRIPT = `for p in /proc/[0-9]*; do
  case "$(readlink "$p/cwd" 2>/dev/null)" in "$1"|"$1"/*) kill -9 "\${p#/proc/}" 2>/dev/null ;; esac
done
exit 0`;

export class ContainerDeployer {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ContainerDeployerOptions) {}

  /**
   * Deploys one checkout; deploys to one container run one at a time. The answer comes once the
   * new tree is live; the removal of the previous one still belongs to this deploy's turn.
   */
  deploy(request: DeployRequest): Promise<DeployResult> {
    const before = this.queues.get(request.containerId) ?? Promise.resolve();
    const ran = before.then(
      () => this.run(request),
      () => this.run(request),
    );
    const result = ran.then((done) => done.result);
    const settled = ran.then(
      (done) => done.cleanup().catch((error: unknown) => this.options.onCleanupFailed?.(error)),
      () => undefined,
    );
    this.queues.set(request.containerId, settled);
    void settled.then(() => {
      if (this.queues.get(request.containerId) === settled) this.queues.delete(request.containerId);
    });
    return result;
  }

  /** Resolves when the container's deploys so far are done, the previous tree's removal included. */
  async idle(containerId: string): Promise<void> {
    for (let current = this.queues.get(containerId); current; current = this.queues.get(containerId)) {
      await current;
      if (this.queues.get(containerId) === current) return;
    }
  }

  private async run({ containerId, checkoutDir, settings, onProgress = () => undefined, signal }: DeployRequest): Promise<{ result: DeployResult; cleanup: () => Promise<void> }> {
    const started = performance.now();
    const webRoot = checkWebRoot(settings.webRoot);
    const keepPaths = (settings.keepPaths ?? []).map(checkKeepPath);
    const afterUpdate = settings.afterUpdate?.trim();
    if (afterUpdate && /[\r\n\0]/.test(afterUpdate)) throw new DeployError('bad-settings', 'the after-update command is not one line');
    const buildCommand = settings.buildCommand?.trim() || undefined;
    const buildOutput = settings.buildOutput?.trim() ? checkKeepPath(settings.buildOutput.trim()) : undefined;
    if ((buildCommand === undefined) !== (buildOutput === undefined)) throw new DeployError('bad-settings', 'a build step needs both a command and an output folder');
    if (buildCommand && /[\r\n\0]/.test(buildCommand)) throw new DeployError('bad-settings', 'the build command is not one line');
    const stopIfCancelled = (): void => {
      if (signal?.aborted) throw new DeployError('cancelled', 'the deploy was cancelled before the swap');
    };
    stopIfCancelled();
    const container = this.options.docker.container(containerId);
    const info = await this.engine('inspecting the container', () => container.inspect());
    const name = info.Name.replace(/^\//, '');
    if (info.Config.Labels?.[LABELS.managed] !== 'true') throw new DeployError('not-deployable', `container ${name} is not managed by devplein`);
    if (!info.State.Running) throw new DeployError('not-deployable', `container ${name} is not running`);
    const owner = await this.webUser(container, name);

    const removed = await this.exec(container, ['sh', '-c', CLEAN_SCRIPT, 'sh', webRoot], 'root');
    if (removed.exitCode !== 0) throw new DeployError('docker-failed', `cleaning earlier deploys in ${name} failed: ${removed.output.trim()}`);
    const leftovers = lines(removed.output).filter((path) => path.startsWith(`${webRoot}.devplein-`));
    if (leftovers.length > 0) await this.removeTrees(container, leftovers, owner);
    onProgress({ step: 'cleaning', removed: leftovers.length });

    const plan = await planTree(checkoutDir, { maxFiles: this.options.maxFiles ?? 50_000, maxBytes: this.options.maxBytes ?? 500 * 1024 * 1024 });
    const id = randomBytes(4).toString('hex');
    const slash = webRoot.lastIndexOf('/');
    const parent = slash === 0 ? '/' : webRoot.slice(0, slash);
    const baseName = webRoot.slice(slash + 1);
    const nextName = `${baseName}.devplein-next-${id}`;
    const next = `${webRoot}.devplein-next-${id}`;
    const prev = `${webRoot}.devplein-prev-${id}`;
    onProgress({ step: 'copying', files: plan.files, bytes: plan.bytes, skipped: plan.skipped });
    try {
      await this.put(container, packTree(checkoutDir, plan, nextName, owner), parent, name);
      stopIfCancelled();
      if (buildCommand && buildOutput) {
        await this.command(container, 'build', buildCommand, next, owner, (line) => onProgress({ step: 'building', line }), signal);
        stopIfCancelled();
        const checked = (await this.exec(container, ['sh', '-c', BUILD_OUTPUT_SCRIPT, 'sh', next, buildOutput], `${owner.uid}:${owner.gid}`)).output.trim();
        if (checked !== 'ok') {
          const why = checked === 'outside' ? 'points outside the tree' : checked === 'not-a-folder' ? 'is not a folder' : 'is missing after the build';
          throw new DeployError('build-failed', `the build output folder ${buildOutput} ${why}`);
        }
        await this.replaceByOutput(container, next, buildOutput, `${baseName}.devplein-build-${id}`, parent, name, owner);
        onProgress({ step: 'built', output: buildOutput });
      }
      const kept = keepPaths.length ? await this.keep(container, webRoot, keepPaths, next, nextName, parent, name, owner) : [];
      onProgress({ step: 'keeping', kept });
      if (afterUpdate) await this.command(container, 'after-update', afterUpdate, next, owner, (line) => onProgress({ step: 'after-update', line }), signal);
      stopIfCancelled();
      await this.options.beforeSwap?.();
      stopIfCancelled();
      onProgress({ step: 'swapping' });
      const swap = await this.exec(container, ['sh', '-c', HOLDERS_THEN_SWAP_SCRIPT, 'sh', webRoot, prev, next], 'root');
      const marked = swap.output.indexOf(SWAP_MARK);
      const holders = marked < 0 ? [] : lines(swap.output.slice(0, marked));
      if (swap.exitCode !== 0 || marked < 0) throw new DeployError('swap-failed', `swapping the new tree into ${webRoot} failed: ${swap.output.slice(marked < 0 ? 0 : marked + SWAP_MARK.length).trim()}`);
      const restart = holders.length > 0 && (this.options.heldOldRoot ?? 'restart') === 'restart';
      if (restart) {
        onProgress({ step: 'restarting', holders });
        await this.engine('restarting the container', () => container.restart(10));
      }
      // The new site is live: the previous tree goes after the answer (the container's next
      // deploy waits for it; one that fails leaves it to the next deploy's cleaning).
      const cleanup = () => this.removeTrees(container, [prev], owner);
      return {
        result: { files: plan.files, bytes: plan.bytes, durationMs: Math.round(performance.now() - started), kept, skipped: plan.skipped, heldOldRoot: holders, restarted: restart },
        cleanup,
      };
    } catch (error) {
      // The old site stays: only the staging folder goes (best effort; the next deploy cleans too).
      await this.removeTrees(container, [next, `${webRoot}.devplein-build-${id}`], owner).catch(() => undefined);
      throw error;
    }
  }

  /** The build or after-update command in the staging folder, as the web user; a cancelled deploy stops waiting for it. */
  private async command(
    container: EngineContainer,
    kind: 'build' | 'after-update',
    command: string,
    next: string,
    owner: TreeOwner,
    onLine: (line: string) => void,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const limit = (kind === 'build' ? this.options.buildTimeoutMs : undefined) ?? this.options.afterUpdateTimeoutMs ?? 300_000;
    const outcome = await this.exec(container, ['sh', '-c', command], `${owner.uid}:${owner.gid}`, {
      workingDir: next,
      timeoutMs: limit,
      maxOutput: this.options.afterUpdateOutputBytes ?? 64 * 1024,
      onLine,
      signal,
    });
    const tail = lines(outcome.output).slice(-20);
    // As the web user: without CAP_SYS_PTRACE (Docker's default) root cannot read another user's /proc/N/cwd.
    if (outcome.timedOut || outcome.cancelled) await this.exec(container, ['sh', '-c', KILL_SCRIPT, 'sh', next], `${owner.uid}:${owner.gid}`).catch(() => undefined);
    if (outcome.cancelled) throw new DeployError('cancelled', `the deploy was cancelled during the ${kind} command`);
    if (outcome.timedOut) throw new DeployError(`${kind}-timeout`, `the ${kind} command did not finish within ${limit / 1000} s`, tail);
    if (outcome.exitCode !== 0) throw new DeployError(`${kind}-failed`, `the ${kind} command exited with ${outcome.exitCode}`, tail);
  }

  /**
   * Removes folders the web user's files fill: the containers run without CAP_DAC_OVERRIDE, so
   * root cannot delete inside the web user's folders, and the web user cannot delete an entry of
   * the web root's parent. The web user empties them first, then root removes what is left.
   */
  private async removeTrees(container: EngineContainer, paths: string[], owner: TreeOwner): Promise<void> {
    await this.exec(container, ['rm', '-rf', '--', ...paths], `${owner.uid}:${owner.gid}`);
    const rooted = await this.exec(container, ['rm', '-rf', '--', ...paths], 'root');
    if (rooted.exitCode !== 0) throw new DeployError('docker-failed', `removing ${paths.join(', ')} failed: ${rooted.output.trim()}`);
  }

  /**
   * Copies the keep paths that exist from the current web root into the new tree, with their
   * owners (uploads the web server wrote stay its own): through the engine, as for the build
   * output, because root in the container may not write in the web user's folders.
   */
  private async keep(container: EngineContainer, webRoot: string, keepPaths: string[], next: string, nextName: string, parent: string, name: string, owner: TreeOwner): Promise<string[]> {
    const kept = lines((await this.checked(container, ['sh', '-c', KEEP_SCRIPT, 'sh', webRoot, ...keepPaths], 'root', 'finding the paths to keep')).output).filter((path) => keepPaths.includes(path));
    if (kept.length === 0) return [];
    await this.checked(container, ['sh', '-c', KEEP_ROOM_SCRIPT, 'sh', next, ...kept], `${owner.uid}:${owner.gid}`, 'making room for the kept paths');
    for (const path of kept) {
      const archive = await this.engine('reading a kept path', () => container.getArchive(`${webRoot}/${path}`));
      await this.put(container, renameArchiveRoot(archive, `${nextName}/${path}`), parent, name);
    }
    return kept;
  }

  /**
   * The build's output folder becomes the staging folder. Copied by the Docker engine (an archive
   * of the output, put back beside as a new folder with the same owners): root in the container
   * may not move the web user's folders between folders. The old staging folder is removed.
   */
  private async replaceByOutput(container: EngineContainer, next: string, output: string, builtName: string, parent: string, name: string, owner: TreeOwner): Promise<void> {
    let archive: Readable;
    try {
      archive = await container.getArchive(`${next}/${output}`);
    } catch (error) {
      throw new DeployError('build-failed', `the build output folder ${output} is missing after the build`, [], { cause: error });
    }
    const renamed = renameArchiveRoot(archive, builtName);
    await this.put(container, renamed, parent, name);
    const built = `${parent === '/' ? '' : parent}/${builtName}`;
    await this.removeTrees(container, [next], owner);
    const moved = await this.exec(container, ['mv', '-T', built, next], 'root');
    if (moved.exitCode !== 0) throw new DeployError('docker-failed', `moving the build output into place failed: ${moved.output.trim()}`);
  }

  /** The image's `student` account (uid, gid) from the container's /etc/passwd. */
  private async webUser(container: EngineContainer, name: string): Promise<TreeOwner> {
    const file = await readContainerEntry(container, '/etc/passwd', (error) => new DeployError('docker-failed', `reading /etc/passwd in ${name} failed`, [], { cause: error }));
    if (!file) throw new DeployError('not-deployable', `container ${name} has no /etc/passwd`);
    const account = file.type === 'file' ? passwdEntry(file.data.toString('utf8'), SSH_USER) : undefined;
    if (!account) throw new DeployError('not-deployable', `the image of container ${name} has no usable user ${SSH_USER} to own the site's files`);
    return { uid: account.uid, gid: account.gid };
  }

  private async put(container: EngineContainer, archive: Readable, parent: string, name: string): Promise<void> {
    try {
      await container.putArchive(archive, parent);
    } catch (error) {
      if (error instanceof DeployError) throw error;
      throw new DeployError('docker-failed', `copying the tree into ${name} failed: ${error instanceof Error ? error.message : String(error)}`, [], { cause: error });
    }
    if (archive.errored instanceof DeployError) throw archive.errored;
    if (archive.errored) throw new DeployError('docker-failed', `reading the checkout failed: ${archive.errored.message}`);
  }

  private async checked(container: EngineContainer, cmd: string[], user: string, what: string): Promise<ExecOutcome> {
    const outcome = await this.exec(container, cmd, user);
    if (outcome.exitCode !== 0) throw new DeployError('docker-failed', `${what} failed: ${outcome.output.trim()}`);
    return outcome;
  }

  /** Runs a command (stdout and stderr together), with a time limit and capped output (engine.ts's exec). */
  private async exec(
    container: EngineContainer,
    cmd: string[],
    user: string,
    extra: { workingDir?: string; timeoutMs?: number; maxOutput?: number; onLine?: (line: string) => void; signal?: AbortSignal | undefined } = {},
  ): Promise<ExecOutcome> {
    const maxOutput = extra.maxOutput ?? 1024 * 1024;
    let output = '';
    let pending = '';
    const outcome = await this.engine('starting a command', () =>
      container.exec(cmd, {
        user,
        ...(extra.workingDir ? { workingDir: extra.workingDir } : {}),
        timeoutMs: extra.timeoutMs ?? this.options.execTimeoutMs ?? 60_000,
        maxOutputBytes: maxOutput,
        overLimit: 'drain',
        ...(extra.signal ? { signal: extra.signal } : {}),
        onOutput: (chunk) => {
          const text = chunk.toString('utf8');
          output += text;
          pending += text;
          const parts = pending.split('\n');
          pending = parts.pop() ?? '';
          for (const line of parts) extra.onLine?.(line);
        },
      }),
    );
    if (outcome.truncated) {
      extra.onLine?.(`… (output cut at ${maxOutput} bytes)`);
    } else if (pending) extra.onLine?.(pending);
    return { exitCode: outcome.exitCode, output, timedOut: outcome.timedOut, truncated: outcome.truncated, cancelled: outcome.cancelled };
  }

  private async engine<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new DeployError('docker-failed', `${what} failed: ${error instanceof Error ? error.message : String(error)}`, [], { cause: error });
    }
  }
}

/**
 * An archive from getArchive (a top entry `<name>` or `<name>/` and `<name>/…` below it) with
 * that top entry renamed to `target`, everything else (owners, modes, links) as it was.
 */
function renameArchiveRoot(source: Readable, target: string): Readable {
  const extract = tar.extract();
  const pack = tar.pack();
  extract.on('entry', (header, stream, next) => {
    const slash = header.name.indexOf('/');
    const renamed = { ...header, name: slash === -1 ? target : `${target}${header.name.slice(slash)}` };
    stream.pipe(pack.entry(renamed, (error) => next(error ?? undefined)));
  });
  extract.once('finish', () => pack.finalize());
  extract.once('error', (error) => pack.destroy(error));
  source.once('error', (error) => extract.destroy(error));
  source.pipe(extract);
  return pack;
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

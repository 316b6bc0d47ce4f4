/**
 * The pure parts of DeployService (issue 23): the Dutch lines of the deploy log, how often git's
 * progress reaches it, and which outcome (with which Dutch sentence) a failure is.
 */
import { DeployOutcome, DeployPhase, type DeployProgress as ProgressMessage } from '@devplein/proto/deploy';
import { DeployError, type DeployProgress } from '../drivers/deploy/container-deployer.ts';
import type { GitProgressEvent, GitProgressPhase } from '../drivers/git/git-progress.ts';
import { GitFetchError } from '../drivers/git/repository-fetcher.ts';
import { GitRunnerUnavailableError } from '../drivers/git/git-runner-client.ts';

/** Bytes as a Dutch reader writes them: "812 B", "4,1 kB", "4,1 MB", "1,2 GB" (powers of 1024, as git shows them). */
export function dutchBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = unit === 0 ? String(Math.round(value)) : value.toFixed(1).replace('.', ',');
  return `${text} ${units[unit]}`;
}

const gitPhaseNames: Record<GitProgressPhase, string> = {
  enumerating: 'Objecten opsommen',
  counting: 'Objecten tellen',
  compressing: 'Objecten inpakken',
  receiving: 'Ophalen',
  resolving: 'Verschillen verwerken',
  'checking-out': 'Bestanden uitpakken',
};

/** One git progress event as a log line: "Ophalen: 45% (120/266)", ", klaar" when the phase ended. */
export function gitProgressLine(event: GitProgressEvent): ProgressMessage {
  const name = `${event.remote ? 'Server: ' : ''}${gitPhaseNames[event.phase]}`;
  let detail = '';
  if (event.percent !== undefined && event.total !== undefined) detail = ` ${event.percent}% (${event.current ?? 0}/${event.total})`;
  else if (event.current !== undefined) detail = ` ${event.current}`;
  const line = `${name}:${detail}${event.done ? ', klaar' : ''}`;
  return { phase: DeployPhase.DEPLOY_PHASE_FETCH, line, percent: event.percent ?? -1 };
}

/**
 * Lets through at most one line per `intervalMs` per key (git rewrites its progress line many
 * times a second), but always the first of a key and a line that ends a phase.
 */
export class ProgressThrottle {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly intervalMs = 200,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether to send this line now. */
  take(key: string, final = false): boolean {
    const time = this.now();
    const previous = this.last.get(key);
    if (!final && previous !== undefined && time - previous < this.intervalMs) return false;
    this.last.set(key, time);
    return true;
  }
}

/** The deployer's steps as log lines (undefined: nothing to say). */
export function deployStepLine(event: DeployProgress): ProgressMessage | undefined {
  const line = (phase: DeployPhase, text: string): ProgressMessage => ({ phase, line: text, percent: -1 });
  switch (event.step) {
    case 'cleaning':
      return event.removed > 0 ? line(DeployPhase.DEPLOY_PHASE_COPY, `Resten van een eerdere deploy opgeruimd (${event.removed})`) : undefined;
    case 'copying': {
      const skipped = event.skipped.length > 0 ? `; overgeslagen: ${event.skipped.map((entry) => entry.path).slice(0, 5).join(', ')}${event.skipped.length > 5 ? ' …' : ''}` : '';
      return line(DeployPhase.DEPLOY_PHASE_COPY, `Kopiëren: ${event.files} ${event.files === 1 ? 'bestand' : 'bestanden'} (${dutchBytes(event.bytes)})${skipped}`);
    }
    case 'building':
      return line(DeployPhase.DEPLOY_PHASE_BUILD, event.line);
    case 'built':
      return line(DeployPhase.DEPLOY_PHASE_BUILD, `Bouwen klaar: de inhoud van ${event.output}/ wordt de site`);
    case 'keeping':
      return event.kept.length > 0 ? line(DeployPhase.DEPLOY_PHASE_COPY, `Bewaard: ${event.kept.join(', ')}`) : undefined;
    case 'after-update':
      return line(DeployPhase.DEPLOY_PHASE_AFTER_UPDATE, event.line);
    case 'swapping':
      return line(DeployPhase.DEPLOY_PHASE_SWAP, 'Wisselen');
    case 'restarting':
      return line(DeployPhase.DEPLOY_PHASE_SWAP, 'Container herstart: de webserver werkte in de oude map');
  }
}

export interface FailureOutcome {
  outcome: DeployOutcome;
  /** Dutch, for the student. */
  message: string;
}

/** Every failure's message ends so: the student reads that nothing changed (the card adds nothing). */
const OLD_SITE_STAYS = 'De oude site blijft staan.';

/** The deployer's (English) words about the build's output folder, in Dutch for the student. */
function buildOutputProblem(message: string): string {
  const [, folder = '', why = ''] = /^the build output folder (\S+) (.*)$/.exec(message) ?? [];
  if (why.startsWith('points outside')) return `De uitvoermap ${folder} van de bouwstap wijst naar buiten de repository.`;
  if (why.startsWith('is not a folder')) return `De uitvoermap ${folder} van de bouwstap is geen map.`;
  return `De bouwstap maakte de uitvoermap ${folder} niet.`;
}

/** A deploy that a change of its container stopped (projects/project-turns.ts). */
export function deployStoppedMessage(by: 'interrupt' | 'remove'): string {
  const why = by === 'remove' ? 'de container wordt verwijderd' : 'de container intussen werd gestopt, herstart of gepauzeerd';
  return `De deploy is gestopt omdat ${why}. ${OLD_SITE_STAYS}`;
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} seconden`;

/**
 * A deploy's failure as its outcome and Dutch sentence; undefined for a failure that is not the
 * repository's or the commands' (the caller's input, the host: an RPC error instead).
 */
export function failureOutcome(error: unknown, limits: { maxBytes: number; commandTimeoutMs: number }): FailureOutcome | undefined {
  if (error instanceof GitFetchError) {
    switch (error.reason) {
      case 'auth':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_AUTH_FAILED, message: `${error.message} ${OLD_SITE_STAYS}` };
      case 'too-large':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_TOO_LARGE, message: `${error.message} ${OLD_SITE_STAYS}` };
      case 'timeout':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_TIMED_OUT, message: `${error.message} ${OLD_SITE_STAYS}` };
      case 'not-found':
      case 'redirect':
      case 'git-failed':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED, message: `${error.message} ${OLD_SITE_STAYS}` };
      default:
        // address-refused, bad-branch, bad-commit, bad-credentials: checked before the fetch (INVALID_ARGUMENT); cancelled: nobody listens.
        return undefined;
    }
  }
  if (error instanceof GitRunnerUnavailableError) {
    return { outcome: DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED, message: `De git-runner van de ontwikkelserver antwoordt niet; meld het bij een docent. ${OLD_SITE_STAYS}` };
  }
  if (error instanceof DeployError) {
    const tail = error.outputLines.length > 0 ? ` Laatste uitvoer: ${error.outputLines.slice(-3).join(' | ')}` : '';
    switch (error.reason) {
      case 'build-failed':
        return /output folder/.test(error.message)
          ? { outcome: DeployOutcome.DEPLOY_OUTCOME_BUILD_FAILED, message: `${buildOutputProblem(error.message)} ${OLD_SITE_STAYS}` }
          : { outcome: DeployOutcome.DEPLOY_OUTCOME_BUILD_FAILED, message: `De bouwopdracht is mislukt (${error.message.replace(/^the build command exited with /, 'afsluitcode ')}). ${OLD_SITE_STAYS}${tail}` };
      case 'build-timeout':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_TIMED_OUT, message: `De bouwopdracht duurde langer dan ${seconds(limits.commandTimeoutMs)}. ${OLD_SITE_STAYS}` };
      case 'after-update-failed':
        return {
          outcome: DeployOutcome.DEPLOY_OUTCOME_AFTER_UPDATE_FAILED,
          message: `De opdracht na het bijwerken is mislukt (${error.message.replace(/^the after-update command exited with /, 'afsluitcode ')}). ${OLD_SITE_STAYS}${tail}`,
        };
      case 'after-update-timeout':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_TIMED_OUT, message: `De opdracht na het bijwerken duurde langer dan ${seconds(limits.commandTimeoutMs)}. ${OLD_SITE_STAYS}` };
      case 'too-large':
        return {
          outcome: DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED,
          message: /files$/.test(error.message)
            ? `De repository heeft te veel bestanden om te kopiëren. ${OLD_SITE_STAYS}`
            : `De bestanden van de repository zijn samen groter dan ${dutchBytes(limits.maxBytes)}. ${OLD_SITE_STAYS}`,
        };
      case 'docker-failed':
      case 'swap-failed':
        return { outcome: DeployOutcome.DEPLOY_OUTCOME_COPY_FAILED, message: `Kopiëren naar de container of wisselen is mislukt. ${OLD_SITE_STAYS}` };
      default:
        // bad-settings, not-deployable: the request or the container (RPC errors); cancelled: nobody listens.
        return undefined;
    }
  }
  return undefined;
}

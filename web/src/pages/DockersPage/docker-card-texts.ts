import {
  STATE_AWAITING,
  STATE_NOT_CREATED,
  STATE_REJECTED,
  STATE_UNREACHABLE,
  type ContainerAction,
  type DockerAutoStop,
} from '@devplein/contract/dockers';

/*
 * What a card of the dockers page says, in Dutch: its buttons, the actions a state offers
 * (spec §4), Docker's status line and durations, and why a container was stopped when idle.
 * The page's own texts; api/queries/dockers.ts only talks to the server.
 */

/** Every button a card may show: the container actions plus create and delete (the project). */
export type CardAction = ContainerAction | 'create' | 'delete';

/** Dutch labels, the same everywhere on the page. */
export const CARD_ACTION_LABELS: Record<CardAction, string> = {
  start: 'Starten',
  stop: 'Stoppen',
  pause: 'Pauzeren',
  unpause: 'Hervatten',
  restart: 'Herstarten',
  create: 'Aanmaken',
  delete: 'Verwijderen',
};

/**
 * Spec §4: the actions a card offers in a state. States the spec does not name get what Docker
 * allows ('created' can be started, 'restarting' stopped, 'dead' only removed).
 */
export function actionsForState(state: string): CardAction[] {
  switch (state) {
    case 'exited':
      return ['start', 'delete'];
    case 'running':
      return ['stop', 'pause', 'restart'];
    case 'paused':
      return ['unpause'];
    case STATE_NOT_CREATED:
      return ['create', 'delete'];
    case STATE_AWAITING:
    case STATE_REJECTED:
      return ['delete'];
    case 'created':
      return ['start', 'delete'];
    case 'restarting':
      return ['stop'];
    case 'dead':
      return ['delete'];
    default:
      return [];
  }
}

/** Spec §4: no logs without a container (and none while the dockerserver is unreachable). */
export function showsLogs(state: string): boolean {
  return ![STATE_NOT_CREATED, STATE_AWAITING, STATE_REJECTED, STATE_UNREACHABLE].includes(state);
}

const durationUnits: Array<[seconds: number, one: string, many: string]> = [
  [86_400, 'dag', 'dagen'],
  [3_600, 'uur', 'uur'],
  [60, 'minuut', 'minuten'],
  [1, 'seconde', 'seconden'],
];

/** '7 dagen', '1 dag', '12 uur', '30 minuten': the largest whole unit, rounded down (never more than is true). */
export function dutchDuration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  for (const [size, one, many] of durationUnits) {
    const count = Math.floor(whole / size);
    if (count >= 1) return `${count} ${count === 1 ? one : many}`;
  }
  return '0 seconden';
}

/** Docker's human durations ("Less than a second", "About a minute", "3 hours") in Dutch. */
const DOCKER_DURATION: readonly [RegExp, (n: string) => string][] = [
  [/^less than a second$/i, () => 'minder dan een seconde'],
  [/^about a minute$/i, () => 'ongeveer een minuut'],
  [/^about an hour$/i, () => 'ongeveer een uur'],
  [/^(\d+) seconds?$/i, (n) => `${n} ${n === '1' ? 'seconde' : 'seconden'}`],
  [/^(\d+) minutes?$/i, (n) => `${n} ${n === '1' ? 'minuut' : 'minuten'}`],
  [/^(\d+) hours?$/i, (n) => `${n} uur`],
  [/^(\d+) days?$/i, (n) => `${n} ${n === '1' ? 'dag' : 'dagen'}`],
  [/^(\d+) weeks?$/i, (n) => `${n} ${n === '1' ? 'week' : 'weken'}`],
  [/^(\d+) months?$/i, (n) => `${n} ${n === '1' ? 'maand' : 'maanden'}`],
  [/^(\d+) years?$/i, (n) => `${n} jaar`],
];

function dockerDuration(text: string): string {
  for (const [pattern, dutch] of DOCKER_DURATION) {
    const match = pattern.exec(text.trim());
    if (match !== null) return dutch(match[1] ?? '');
  }
  return 'een tijdje';
}

const HEALTH: Record<string, string> = { healthy: ', gezond', unhealthy: ', niet gezond', 'health: starting': ', gezondheidscheck loopt' };

/**
 * Docker's Status line ("Up 3 minutes (Paused)", "Exited (0) 2 hours ago") in Dutch for the
 * student's card. A text that is not Docker's (the server's own Dutch) comes back unchanged.
 */
export function dutchDockerStatus(status: string): string {
  const text = status.trim();
  const up = /^Up (.+?)(?: \((Paused|healthy|unhealthy|health: starting)\))?$/.exec(text);
  if (up !== null) {
    const since = dockerDuration(up[1] ?? '');
    if (up[2] === 'Paused') return `Gepauzeerd (draait al ${since})`;
    return `Draait al ${since}${up[2] ? (HEALTH[up[2]] ?? '') : ''}`;
  }
  const exited = /^Exited \((-?\d+)\) (.+) ago$/.exec(text);
  if (exited !== null) return `Gestopt ${dockerDuration(exited[2] ?? '')} geleden (exitcode ${exited[1]})`;
  const restarting = /^Restarting \((-?\d+)\) (.+) ago$/.exec(text);
  if (restarting !== null) return `Start opnieuw (exitcode ${restarting[1]}, ${dockerDuration(restarting[2] ?? '')} geleden)`;
  if (text === 'Created') return 'Aangemaakt, nog niet gestart';
  if (text === 'Removal In Progress') return 'Wordt verwijderd';
  if (text === 'Dead') return 'Defect: de container kan niet meer starten';
  if (/^(Up|Exited|Restarting|Paused)\b/.test(text)) return 'Status onbekend';
  return status;
}

const stopDateTime = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'long', timeStyle: 'short' });

/**
 * Why a card's container is stopped when the dockerserver stopped it for lack of visitors:
 * 'Automatisch gestopt op 24 november 2026 om 03:15 omdat je site 7 dagen geen bezoekers had. …'
 */
export function autoStopText(autoStop: DockerAutoStop): string {
  const when = stopDateTime.format(new Date(autoStop.stoppedAt));
  return (
    `Automatisch gestopt op ${when} omdat je site ${dutchDuration(autoStop.idleAfterSeconds)} geen bezoekers had. ` +
    `Hij is niet weg: start hem opnieuw met ${CARD_ACTION_LABELS.start}.`
  );
}

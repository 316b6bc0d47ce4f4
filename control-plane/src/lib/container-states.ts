import { STATE_AWAITING, STATE_NOT_CREATED, STATE_REJECTED, STATE_UNREACHABLE } from '@devplein/contract/dockers';
import { DOCKER_SERVER_UNREACHABLE } from '@devplein/contract/messages';

/**
 * The product's own container states (spec §4) beside Docker's: what the dockers page shows
 * when there is no Docker state to show. `UNREACHABLE` is never read as stopped: the agent did
 * not answer, so the container's state is unknown.
 */
export const AWAITING_APPROVAL = STATE_AWAITING;
export const REJECTED = STATE_REJECTED;
export const NOT_CREATED = STATE_NOT_CREATED;
export const UNREACHABLE = STATE_UNREACHABLE;
/** The realtime message that marks a card busy while an action runs. */
export const ACTION_BUSY = 'action';

/** Status texts that go with the product states. */
export const STATUS_TEXT = {
  [AWAITING_APPROVAL]: 'Dit project wacht op goedkeuring door een docent.',
  [REJECTED]: 'Dit project is afgekeurd.',
  [NOT_CREATED]: 'De container is nog niet aangemaakt.',
  [UNREACHABLE]: DOCKER_SERVER_UNREACHABLE,
} as const;


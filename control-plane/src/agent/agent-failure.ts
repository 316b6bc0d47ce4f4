import { AgentError } from './agent-error.ts';
import { HttpError, notFound, serviceUnavailable } from '../errors.ts';
import { AGENT_UNREACHABLE_MESSAGE } from '@devplein/contract/messages';

/** The one message of every call the agent did not answer (brief: exact text): the contract's. */
export { AGENT_UNREACHABLE_MESSAGE };

/** Dutch texts for the refusals the agent can give; its own details are English and for the log. */
const CONTAINER_MISSING = 'Deze container bestaat niet.';
const ACTION_REFUSED = 'Deze actie kan nu niet: de container is niet in de juiste toestand.';
const NAME_IN_USE = 'Er bestaat op de dockerserver al een container met deze naam.';
const INVALID = 'De dockerserver weigerde deze opdracht als ongeldig.';
/** PERMISSION_DENIED: in practice a container of the dev server itself (devplein.infrastructure=true). */
export const INFRASTRUCTURE_CONTAINER_MESSAGE = 'De dockerserver weigert deze opdracht. Containers van de server zelf (zoals Caddy) beheer je niet via devplein.';

/**
 * An agent failure as the HTTP answer the API promises: did not answer → 503, NOT_FOUND → 404,
 * FAILED_PRECONDITION → 409, INVALID_ARGUMENT → 422, PERMISSION_DENIED (the agent's own limits,
 * e.g. the server's infrastructure containers) → 403; anything else stays an error (logged).
 * Non-agent errors pass through unchanged.
 */
export function agentFailure(error: unknown): unknown {
  if (!(error instanceof AgentError)) return error;
  if (error.unreachable) return serviceUnavailable(AGENT_UNREACHABLE_MESSAGE);
  switch (error.code) {
    case 'NOT_FOUND':
      return notFound(CONTAINER_MISSING);
    case 'FAILED_PRECONDITION':
      return new HttpError(409, ACTION_REFUSED, { detail: error.details });
    case 'ALREADY_EXISTS':
      return new HttpError(409, NAME_IN_USE, { detail: error.details });
    case 'INVALID_ARGUMENT':
      return new HttpError(422, INVALID, { detail: error.details });
    case 'PERMISSION_DENIED':
      return new HttpError(403, INFRASTRUCTURE_CONTAINER_MESSAGE, { detail: error.details });
    default:
      return error;
  }
}

/** Runs an agent call and maps its failure with agentFailure. */
export async function callAgent<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw agentFailure(error);
  }
}

export const isUnreachable = (error: unknown): boolean => error instanceof AgentError && error.unreachable;

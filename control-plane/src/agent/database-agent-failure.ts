import { AgentError } from './agent-error.ts';
import { HttpError, serviceUnavailable } from '../errors.ts';
import { DATABASE_NAME_MESSAGES } from '@devplein/contract/validation/databaseName';

/** Agent or database server not answering (brief: 503 with a Dutch message, nothing stored). */
export const DATABASE_SERVER_UNREACHABLE_MESSAGE = 'De databaseserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';

/** A 422 about the `db` field (spec §8: shown in red as headings above the form). */
export const databaseNameRefused = (message: string): HttpError => new HttpError(422, message, { errors: { db: [message] } });

/** An agent failure as the HTTP answer of the database routes; non-agent errors pass through. */
export function databaseAgentFailure(error: unknown): unknown {
  if (!(error instanceof AgentError)) return error;
  if (error.unreachable) return serviceUnavailable(DATABASE_SERVER_UNREACHABLE_MESSAGE);
  switch (error.code) {
    case 'ALREADY_EXISTS':
      return databaseNameRefused(DATABASE_NAME_MESSAGES.taken);
    case 'INVALID_ARGUMENT':
      return databaseNameRefused(DATABASE_NAME_MESSAGES.lettersOnly);
    case 'UNIMPLEMENTED':
      return new HttpError(501, 'Databases worden door de ontwikkelserver nog niet ondersteund.');
    default:
      return error;
  }
}

import { AgentError } from './agent-error.ts';
import { HttpError, serviceUnavailable } from '../errors.ts';

/** Agent or WireGuard not answering (brief: 503 with a Dutch message, nothing stored). */
export const VPN_SERVER_UNREACHABLE_MESSAGE = 'De VPN-server is op dit moment niet bereikbaar. Probeer het zo opnieuw.';
const POOL_FULL = 'Er zijn geen VPN-adressen meer vrij. Meld dit bij een docent.';
/** The agent reports a VPN server setting the config file refuses (502). */
export const MISCONFIGURED_VPN_MESSAGE = 'De VPN-server is niet goed ingesteld, dus er kan geen configuratie gemaakt worden. Meld dit bij een docent.';

/** An agent failure as the HTTP answer of the VPN routes; non-agent errors pass through. */
export function vpnAgentFailure(error: unknown): unknown {
  if (!(error instanceof AgentError)) return error;
  if (error.unreachable) return serviceUnavailable(VPN_SERVER_UNREACHABLE_MESSAGE);
  switch (error.code) {
    case 'RESOURCE_EXHAUSTED':
      return serviceUnavailable(POOL_FULL);
    case 'UNIMPLEMENTED':
      return new HttpError(501, 'De VPN wordt door de ontwikkelserver nog niet ondersteund.');
    default:
      return error;
  }
}

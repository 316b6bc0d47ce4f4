import Router from '@koa/router';
import { adminStatus } from '@devplein/contract/http/admin-status';
import type { Logger } from 'pino';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import type { AgentLink } from '../../agent/agent-fleet.ts';
import { toAgentError } from '../../agent/agent-error.ts';
import { agentCertificatePaths, certificateEnd } from '../../agent/link-certificates.ts';
import { type DevServerOutcome, presentAdminStatus, presentCertificateEnd, presentDevServerStatus, presentLastBackup } from '../../presenters/present-admin-status.ts';
import { latestBackupRun } from '../../queries/backups.ts';
import { handle } from '../handle.ts';

const pinMismatch = (fingerprint: string) =>
  `de agent toont een ander certificaat dan bij het koppelen is vastgelegd (certificaat ${fingerprint}; ingetrokken of vervangen: nodig de server opnieuw uit)`;

/**
 * One dev server's facts: HostStats, or why there are none, in Dutch (gRPC's own English, such
 * as "No connection established", goes to the log, not to the page). Never throws.
 */
async function askDevServer(link: AgentLink, requestId: string, logger: Logger): Promise<DevServerOutcome> {
  try {
    return { kind: 'stats', stats: await link.client.hostStats.getHostStats({ requestId }) };
  } catch (failure) {
    const error = toAgentError(failure, 'GetHostStats');
    logger.warn({ host: link.name, code: error.code, details: error.details }, 'status: GetHostStats failed');
    if (error.unreachable) {
      // The pinned fingerprint (agent-client.ts) refused the agent's certificate: worth saying which.
      const shown = /agent certificate ([0-9a-f]{64}) is not the pinned/.exec(error.details)?.[1];
      if (shown) return { kind: 'unreachable', error: pinMismatch(shown) };
      return { kind: 'unreachable', error: error.code === 'DEADLINE_EXCEEDED' ? 'de agent antwoordde niet op tijd' : 'geen verbinding met de agent' };
    }
    // An agent older than contract 1.5.0 has no HostStats: show what GetInfo still says.
    const reason = error.code === 'UNIMPLEMENTED' ? 'de agent is te oud voor de statuspagina (contract 1.5.0 nodig)' : 'de agent kon zijn status niet geven (zie het log van de agent)';
    const info = await link.client.info({ requestId }).catch(() => null);
    return { kind: 'incomplete', error: reason, info };
  }
}

/**
 * GET /api/admin/status (contract/src/http/admin-status.ts, admins): every dev server's health, disks, containers, certificate and last
 * backup, all agents asked at once (each call within the agent deadline, AGENT_DEADLINE_MS); an
 * agent that does not answer is a row marked unreachable, never an error of the whole page.
 */
export function adminStatusRoutes(deps: Pick<AppDeps, 'agents' | 'config' | 'knex' | 'logger'>): AppRouter {
  const router: AppRouter = new Router();
  handle(router, adminStatus, async (ctx) => {
    const paths = agentCertificatePaths(deps.config);
    const [outcomes, clientCertificate, linkCa, backup] = await Promise.all([
      Promise.all(deps.agents.links.map((link) => askDevServer(link, ctx.state.requestId, deps.logger))),
      paths ? certificateEnd(paths.cert) : null,
      paths ? certificateEnd(paths.ca) : null,
      latestBackupRun(deps.knex),
    ]);
    const now = new Date();
    const servers = deps.agents.links.map((link, index) => presentDevServerStatus(link, outcomes[index] as DevServerOutcome, now));
    const lastBackup = presentLastBackup(backup ? { finishedAt: backup.finished_at, ok: backup.ok, sizeBytes: backup.size_bytes, message: backup.message } : null);
    return presentAdminStatus(
      servers,
      { clientCertificate: presentCertificateEnd(clientCertificate, now), linkCa: presentCertificateEnd(linkCa, now), lastBackup },
      now,
    );
  });
  return router;
}

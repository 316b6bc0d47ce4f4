import path from 'node:path';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config.ts';
import { type AccessLogListener, listenForAccessLog } from '../drivers/proxy/access-log-listener.ts';
import { accessLoggerPath, parseAccessLine } from '../drivers/proxy/access-log.ts';
import type { AgentMetrics } from '../metrics/metrics.ts';
import { SITE_ACTIVITY_FILE, SiteActivity } from './site-activity.ts';

/** The activity side of the idle auto-stop, running: the store and the access log listener. */
export interface IdleTracking {
  activity: SiteActivity;
  /** host:port Caddy's net writer sends the managed server's access log to. */
  accessLogAddress: string;
  close(): Promise<void>;
}

/**
 * Loads the activity store from AGENT_DATA_DIR and listens for Caddy's access log: every line of
 * the managed server's logger is a visit to its host, unless it carries the screenshot
 * browser's `visitToken`. Undefined (and logged) when the listener cannot bind: without seeing
 * visits the agent must not stop anything, so the idle auto-stop stays off.
 */
export async function startIdleTracking(options: {
  config: Pick<AgentConfig, 'dataDir' | 'caddy'> & { idleStop: NonNullable<AgentConfig['idleStop']> };
  logger: Logger;
  metrics: Pick<AgentMetrics, 'countSiteRequest'>;
  visitToken: string;
  now: () => Date;
}): Promise<IdleTracking | undefined> {
  const { config, logger, metrics, visitToken, now } = options;
  const file = path.join(config.dataDir, SITE_ACTIVITY_FILE);
  const { activity, load, problem } = await SiteActivity.load({ file, now });
  if (load === 'unreadable') logger.warn({ file, problem }, 'idle auto-stop: the activity file is unreadable; starting over (nothing is stopped before a whole idle time was watched)');
  else logger.info({ file, load }, 'idle auto-stop: site activity loaded');

  const loggerPath = accessLoggerPath(config.caddy.server);
  let listener: AccessLogListener;
  try {
    listener = await listenForAccessLog(config.idleStop.accessLogListen, (line) => {
      const request = parseAccessLine(line, loggerPath, visitToken);
      if (!request) return;
      // The screenshot browser's requests are counted, never activity.
      if (request.fromScreenshotter) {
        metrics.countSiteRequest('screenshotter');
      } else {
        activity.recordVisit(request.host);
        metrics.countSiteRequest('visitor');
      }
    });
  } catch (error) {
    logger.error(
      { err: error, listen: config.idleStop.accessLogListen },
      'idle auto-stop: cannot listen for the access log (AGENT_ACCESS_LOG_LISTEN); idle auto-stop is off',
    );
    return undefined;
  }
  logger.info({ address: listener.address, afterMs: config.idleStop.afterMs, cron: config.idleStop.cron }, 'idle auto-stop: listening for the access log');
  return { activity, accessLogAddress: listener.address, close: () => listener.close() };
}

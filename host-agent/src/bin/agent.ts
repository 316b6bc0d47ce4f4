/**
 * Host agent entry point: reads the environment (see config.ts), serves the agent contract over
 * gRPC with mutual TLS and logs pino JSON lines to stdout, one of them `"msg":"listening"` with
 * the port. Stops gracefully on SIGTERM/SIGINT.
 */
import type { Logger } from 'pino';
import { AGENT_VERSION } from '../agent-version.ts';
import { type AgentConfig, ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startAgentServer } from '../server.ts';

function fail(logger: Logger, error: unknown, message: string): never {
  if (error instanceof ConfigError) logger.fatal(error.message);
  else logger.fatal({ err: error }, message);
  process.exit(1);
}

async function main(): Promise<void> {
  const bootLogger = createLogger('host-agent');
  let config: AgentConfig;
  try {
    config = loadConfig();
  } catch (error) {
    fail(bootLogger, error, 'invalid configuration');
  }
  const logger = createLogger('host-agent', config.logLevel);

  let running;
  try {
    running = await startAgentServer({ config, logger });
  } catch (error) {
    fail(logger, error, `could not start the agent on ${config.listen}`);
  }
  logger.info(
    { listen: config.listen, port: running.port, agentVersion: AGENT_VERSION, allowedClients: config.allowedClients },
    'listening',
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void running.shutdown().then(() => {
      logger.info('stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();

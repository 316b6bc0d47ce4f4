import { pino, type Logger } from 'pino';
import { journaldHooks } from '@devplein/server-kit/journald-log';

/** A process logger of the agent's units: JSON lines on stdout, under systemd each with its syslog level. */
export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, hooks: journaldHooks() });
}

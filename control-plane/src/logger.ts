import { pino, type Logger } from 'pino';
import { journaldHooks } from '@devplein/server-kit/journald-log';

/** The process logger: JSON lines (npm start pipes them through pino-pretty for humans; under systemd each with its syslog level). */
export function createLogger(level: string, name = 'control-plane'): Logger {
  return pino({
    name,
    level,
    hooks: journaldHooks(),
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', '*.password', '*.secret', '*.id_token', '*.access_token'],
      censor: '[verborgen]',
    },
  });
}

import { pino, type Logger } from 'pino';

/** The process logger: JSON lines (npm start pipes them through pino-pretty for humans). */
export function createLogger(level: string, name = 'control-plane'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', '*.password', '*.secret', '*.id_token', '*.access_token'],
      censor: '[verborgen]',
    },
  });
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from './system-programs.ts';

/** Where Debian's phpmyadmin package puts phpMyAdmin. */
export const PHPMYADMIN_DIR = '/usr/share/phpmyadmin';

/** PHP's command line and an installed phpMyAdmin, or undefined when either is missing. */
export interface PhpMyAdminPrograms {
  php: string;
  dir: string;
}

export function findPhpMyAdmin(dir = PHPMYADMIN_DIR): PhpMyAdminPrograms | undefined {
  const php = findExecutable('php');
  if (!php || !existsSync(join(dir, 'index.php'))) return undefined;
  return { php, dir };
}

/**
 * phpMyAdmin on an origin of its own for `npm start`: PHP's built-in web server on a loopback
 * port of its own (never under the control plane's, whose session its pages must not reach).
 * phpMyAdmin's settings are the machine's (Debian: /etc/phpmyadmin), so students sign in with
 * the user and password the databases page shows.
 */
export function phpMyAdminServerArgs(programs: PhpMyAdminPrograms, port: number): string[] {
  return ['-S', `127.0.0.1:${port}`, '-t', programs.dir];
}

/** The URL the databases page links to: the root of phpMyAdmin's own origin. */
export const phpMyAdminUrl = (port: number): string => `http://127.0.0.1:${port}/`;

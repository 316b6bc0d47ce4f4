/** Signing out (spec §2 top menu). Signing in is the school provider's (auth/, contract/src/http/auth.ts). */
import { z } from 'zod';
import { endpoint, json, notAllowed } from './endpoint.ts';

export const logoutJson = z.strictObject({
  /** Where the browser goes next: the school provider's end_session_endpoint, or home. */
  redirect: z.string(),
});
export type LogoutJson = z.infer<typeof logoutJson>;

export const logout = endpoint({
  method: 'POST',
  path: '/logout',
  access: 'public',
  summary:
    "Ends the session (CSRF token required, signed in or not), asks for the account at this browser's next sign-in, and answers where to go: the school provider's logout, which comes back to the home page signed out.",
  answer: json(logoutJson),
});

export const logoutByGet = endpoint({
  method: 'GET',
  path: '/logout',
  access: 'public',
  summary: 'A link must not sign anyone out: 405 (an HTML page for a browser, the error body otherwise).',
  answer: notAllowed('POST'),
});

export const sessionEndpoints = [logoutByGet, logout];

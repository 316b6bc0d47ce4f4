import { createContext, createElement, useContext, type ReactNode } from 'react';
import useSWR from 'swr';
import { logout } from '@devplein/contract/http/session';
import { currentUser } from '@devplein/contract/http/user';
import { NetworkError } from '../client.ts';
import { call, keyOf } from '../endpoints.ts';
import { goToPage } from '../../navigation.ts';
import type { CurrentUserJson } from '@devplein/contract/users';

/** A team the user belongs to; the "first team" is the one with the lowest id. */
export type TeamRef = CurrentUserJson['teams'][number];

/** The user's class (cohort such as 'SD22'); null for users without a group. */
export type GroupRef = NonNullable<CurrentUserJson['group']>;

/**
 * GET /api/user: the signed-in user. `email_verified_at` null means the account is not activated.
 * The start-up user does not read the answer's `levelCategories` (the profile does).
 */
export type CurrentUser = Omit<CurrentUserJson, 'levelCategories'>;

export const CURRENT_USER_KEY = keyOf(currentUser, {});

/** Spec §9: the start-up user fetch gives up after 8 s. */
export const CURRENT_USER_TIMEOUT_MS = 8000;

/** Waits between tries of the start-up fetch after a network failure: short, then a little longer. */
const NETWORK_RETRY_DELAYS_MS = [100, 250, 500, 1000];

/**
 * Loads the signed-in user once at start-up. Any failure (401, timeout, network, server error)
 * means "not signed in" (spec §8), so this never throws: it logs and resolves to null.
 * A failure without any answer (a laptop changing networks: Chromium's ERR_NETWORK_CHANGED) is
 * tried again within the same time budget (spec §9: 8 s), so a network blip is not a sign-out;
 * an HTTP answer (401, 500, …) is final at once.
 * The 401/403 redirect of the API client is off here: a 401 is the normal signed-out answer.
 */
export async function fetchCurrentUser(timeoutMs: number = CURRENT_USER_TIMEOUT_MS): Promise<CurrentUser | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        // Read as unknown: what answers may not be a control plane at all (checked below).
        const body: unknown = await call(currentUser, {}, { signal: controller.signal, redirectOnAuthError: false });
        if (isCurrentUser(body)) return body;
        // E.g. a static server answering with index.html: not a control plane, so nobody is signed in.
        console.error('GET /api/user gaf geen gebruiker terug; verder als niet ingelogd');
        return null;
      } catch (error) {
        const noAnswer = error instanceof NetworkError && !error.aborted;
        if (noAnswer && !controller.signal.aborted) {
          console.info('Geen verbinding bij het laden van de gebruiker; opnieuw proberen');
          await pause(NETWORK_RETRY_DELAYS_MS[Math.min(attempt, NETWORK_RETRY_DELAYS_MS.length - 1)] ?? 1000, controller.signal);
          if (!controller.signal.aborted) continue;
        }
        if (controller.signal.aborted) {
          console.warn(`Gebruiker laden duurde langer dan ${timeoutMs} ms; verder als niet ingelogd`);
        } else {
          console.info('Niet ingelogd:', error instanceof Error ? error.message : error);
        }
        return null;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Shape check of the /api/user answer (the fields the menus and guards rely on). */
export function isCurrentUser(value: unknown): value is CurrentUser {
  if (typeof value !== 'object' || value === null) return false;
  const user = value as Record<string, unknown>;
  return (
    typeof user.id === 'number' &&
    typeof user.name === 'string' &&
    typeof user.name_slug === 'string' &&
    (typeof user.email_verified_at === 'string' || user.email_verified_at === null) &&
    typeof user.admin === 'boolean' &&
    typeof user.developer === 'boolean' &&
    Array.isArray(user.teams) &&
    (user.group === null || (typeof user.group === 'object' && typeof (user.group as Record<string, unknown>).cohort === 'string'))
  );
}

/** What the app knows about the signed-in user; `user` is null when signed out. */
export interface CurrentUserState {
  user: CurrentUser | null;
  isLoading: boolean;
  /** Fetch /api/user again (e.g. after a profile change). */
  refresh: () => Promise<unknown>;
}

const CurrentUserContext = createContext<CurrentUserState>({
  user: null,
  isLoading: true,
  refresh: () => Promise.resolve(),
});

/**
 * The swr query behind the provider. Loaded once: no refetch on focus or reconnect, because
 * route guards decide on the user "loaded at start-up" (spec §2) and must not flicker.
 */
export function useCurrentUserQuery(): CurrentUserState {
  const { data, isLoading, mutate } = useSWR(CURRENT_USER_KEY, () => fetchCurrentUser(), {
    revalidateOnFocus: false,
    revalidateOnReconnect: false,
    revalidateIfStale: false,
    shouldRetryOnError: false,
  });
  return { user: data ?? null, isLoading: isLoading || data === undefined, refresh: () => mutate() };
}

/** Loads the user at start-up and shares it with everything below. */
export function CurrentUserProvider({ children }: { children: ReactNode }) {
  const state = useCurrentUserQuery();
  return createElement(CurrentUserContext.Provider, { value: state }, children);
}

/** Gives a fixed user to everything below: for tests and previews, no request made. */
export function StaticCurrentUserProvider({ user, children }: { user: CurrentUser | null; children: ReactNode }) {
  const value: CurrentUserState = { user, isLoading: false, refresh: () => Promise.resolve() };
  return createElement(CurrentUserContext.Provider, { value }, children);
}

/** The signed-in user (null when signed out) as loaded at start-up. */
export function useCurrentUser(): CurrentUserState {
  return useContext(CurrentUserContext);
}

/**
 * Logs out: POST /logout (with the CSRF token, like every write), then a full page load of where
 * the server says: the school provider's logout, which comes back to the home page signed out.
 * If the request fails (a session that already ended answers 419), the home page is loaded
 * anyway: it shows the signed-out state when the session is gone.
 */
export async function logOut(): Promise<void> {
  let target = '/';
  try {
    const answer = await call(logout, {}, { redirectOnAuthError: false });
    if (typeof answer?.redirect === 'string' && answer.redirect !== '') target = answer.redirect;
  } catch (error) {
    console.error('Uitloggen mislukt', error);
  }
  goToPage(target);
}

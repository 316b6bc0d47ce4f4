import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { IntroduceeJson as Introducee } from '@devplein/contract/access';
export type { Introducee };

/* Introducees, 'meelopers' (spec §2 Meelopers, §7 admin calls): admin-only on the server. */

export const INTRODUCEES_KEY = '/api/admin/introduction';

export interface IntroduceesQuery {
  data: Introducee[] | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<Introducee[]>;
}

export function useIntroducees(): IntroduceesQuery {
  const { data, error, isLoading, mutate } = useSWR<Introducee[]>(INTRODUCEES_KEY, apiFetcher<Introducee[]>);
  return { data, error, isLoading, mutate };
}

/** POST /api/admin/introduction {name}: answers the updated list; a 422 carries errors.name (e.g. '… bestaat al.'). */
export function createIntroducee(name: string): Promise<Introducee[]> {
  return api.post<Introducee[]>(INTRODUCEES_KEY, { name });
}

/** DELETE /api/admin/introduction/{id}: answers the updated list. */
export function deleteIntroducee(id: number): Promise<Introducee[]> {
  return api.delete<Introducee[]>(`${INTRODUCEES_KEY}/${id}`);
}

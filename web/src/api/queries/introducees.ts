import type { KeyedMutator } from 'swr';
import { createIntroducee as createIntroduceeEndpoint, deleteIntroducee as deleteIntroduceeEndpoint, listIntroducees } from '@devplein/contract/http/introducees';
import type { IntroduceeJson as Introducee } from '@devplein/contract/access';
import { call, useEndpoint } from '../endpoints.ts';
export type { Introducee };

/* Introducees, 'meelopers' (spec §2 Meelopers, §7 admin calls): admin-only on the server. */

export interface IntroduceesQuery {
  data: Introducee[] | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<Introducee[]>;
}

export function useIntroducees(): IntroduceesQuery {
  const { data, error, isLoading, mutate } = useEndpoint(listIntroducees, {});
  return { data, error, isLoading, mutate };
}

/** Makes an introducee; answers the updated list. A 422 carries errors.name (e.g. '… bestaat al.'). */
export function createIntroducee(name: string): Promise<Introducee[]> {
  return call(createIntroduceeEndpoint, { body: { name } });
}

/** Removes an introducee; answers the updated list. */
export function deleteIntroducee(id: number): Promise<Introducee[]> {
  return call(deleteIntroduceeEndpoint, { params: { id } });
}

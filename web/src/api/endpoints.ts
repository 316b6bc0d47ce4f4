/**
 * The web's side of a contract endpoint (contract/src/http): `call` sends a request to the
 * declared method and path with the declared input and answers the declared reply type;
 * `useEndpoint` reads a GET endpoint through SWR, keyed by the address it calls (so a page and a
 * mutation that revalidates the same endpoint meet on one key). No path is typed in a page.
 */
import useSWR, { type SWRConfiguration, type SWRResponse } from 'swr';
import { addressOf, endpointKey, type CallInput, type Endpoint, type ReplyOf } from '@devplein/contract/http/endpoint';
import { apiRequest, type RequestOptions } from './client.ts';

/** Calls an endpoint; errors are the client's (ApiError with field errors, CsrfError, NetworkError). */
export function call<E extends Endpoint>(declared: E, input: CallInput<E>, options: Pick<RequestOptions, 'signal' | 'redirectOnAuthError'> = {}): Promise<ReplyOf<E>> {
  return apiRequest<ReplyOf<E>>(declared.method, addressOf(declared, input), { ...options, body: input.body });
}

/** The SWR key of a GET endpoint with this input (null: do not fetch yet). */
export function keyOf<E extends Endpoint>(declared: E, input: CallInput<E> | null): string | null {
  if (declared.method !== 'GET') throw new Error(`${endpointKey(declared)} is no GET: read it with call()`);
  return input === null ? null : addressOf(declared, input);
}

/** Reads a GET endpoint through SWR; `input` null waits (a page without its id yet). */
export function useEndpoint<E extends Endpoint>(declared: E, input: CallInput<E> | null, config?: SWRConfiguration<ReplyOf<E>>): SWRResponse<ReplyOf<E>> {
  return useSWR<ReplyOf<E>>(keyOf(declared, input), () => call(declared, input as CallInput<E>), config);
}

/**
 * The tests' side of a contract endpoint (contract/src/http): a call as a role, with the declared
 * method, path and input, whose 2xx JSON body is checked against the declared response schema
 * (a presenter that sends a field the contract does not declare, or leaves one out, fails here).
 */
import { addressOf, endpointKey, type CallInput, type Endpoint, type ReplyOf } from '@devplein/contract/http/endpoint';
import { errorJson, type ErrorJson } from '@devplein/contract/http/errors';
import type { HttpSession } from './http-session.ts';

/** An answer: the declared reply on 2xx, the control plane's error body otherwise. */
export type EndpointAnswer<E extends Endpoint> = { status: number; ok: true; body: ReplyOf<E> } | { status: number; ok: false; error: ErrorJson };

/** Sends the call and checks the body against the contract: the declared reply, or an error body. */
export async function send<E extends Endpoint>(session: HttpSession, declared: E, input: CallInput<E>): Promise<EndpointAnswer<E>> {
  const name = endpointKey(declared);
  const response = await session.api(declared.method, addressOf(declared, input), input.body);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const payload: unknown = text && contentType.includes('json') ? JSON.parse(text) : text;
  if (!response.ok) {
    const error = errorJson.safeParse(payload);
    if (!error.success) throw new Error(`${name} answered ${response.status} without the error body: ${text.slice(0, 300)}`);
    return { status: response.status, ok: false, error: error.data };
  }
  const schema = declared.answer.kind === 'json' ? declared.answer.schema : declared.answer.kind === 'file' ? declared.answer.json : undefined;
  if (!schema || !contentType.includes('json')) return { status: response.status, ok: true, body: payload as ReplyOf<E> };
  const checked = schema.safeParse(payload);
  if (!checked.success) throw new Error(`${name} answered a body the contract does not declare: ${checked.error.message}`);
  return { status: response.status, ok: true, body: checked.data as ReplyOf<E> };
}

/** The declared reply of a call that must succeed; anything outside 2xx fails the test with its message. */
export async function call<E extends Endpoint>(session: HttpSession, declared: E, input: CallInput<E>): Promise<ReplyOf<E>> {
  const answer = await send(session, declared, input);
  if (!answer.ok) throw new Error(`${endpointKey(declared)} answered ${answer.status}: ${answer.error.message} ${JSON.stringify(answer.error.errors ?? {})}`);
  return answer.body;
}

/** `as(role).call(endpoint, input)`: calls as one of the test's signed-in sessions, made on first use. */
export function callsAs<Role extends string>(sessionOf: (role: Role) => Promise<HttpSession>) {
  return (role: Role) => ({
    call: async <E extends Endpoint>(declared: E, input: CallInput<E>) => call(await sessionOf(role), declared, input),
    send: async <E extends Endpoint>(declared: E, input: CallInput<E>) => send(await sessionOf(role), declared, input),
  });
}

import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ApiError } from '../api/client.ts';
import type { PeopleMessage } from './MemberList.tsx';

/**
 * What the teams and groups admin pages share besides their view: the chosen one in the URL
 * (?team= / ?group=, so a reload keeps it), the message of the last change, the busy flag while
 * a member change runs, and making a new one (the server's 422 errors under its field).
 */
export function usePeopleAdmin(param: 'team' | 'group') {
  const [params, setParams] = useSearchParams();
  const chosen = Number(params.get(param));
  const chosenId = Number.isInteger(chosen) && chosen > 0 ? chosen : null;
  const [message, setMessage] = useState<PeopleMessage | null>(null);
  const [busy, setBusy] = useState(false);
  const [createErrors, setCreateErrors] = useState<string[]>([]);

  function choose(id: number): void {
    setMessage(null);
    setParams({ [param]: String(id) });
  }

  /** Runs a member change; `success` words what it did from its answer. */
  async function change<T>(action: () => Promise<T>, success: (answer: T) => string): Promise<void> {
    setBusy(true);
    try {
      const answer = await action();
      setMessage({ kind: 'ok', text: success(answer) });
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof ApiError ? error.message : 'Dat lukte niet. Probeer het nog eens.' });
    } finally {
      setBusy(false);
    }
  }

  /** Makes a new one and chooses it; resolves true when it was made (the form then clears). */
  async function create(make: () => Promise<{ id: number; text: string }>, failedText: string): Promise<boolean> {
    setCreateErrors([]);
    try {
      const created = await make();
      setParams({ [param]: String(created.id) });
      setMessage({ kind: 'ok', text: created.text });
      return true;
    } catch (error) {
      setCreateErrors(error instanceof ApiError && error.status === 422 ? Object.values(error.fieldErrors).flat() : [failedText]);
      return false;
    }
  }

  return { chosenId, choose, message, busy, change, create, createErrors };
}

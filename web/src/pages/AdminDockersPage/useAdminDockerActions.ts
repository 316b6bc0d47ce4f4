import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import {
  ADMIN_ACTION_LABELS,
  EMPTY_FILTERS,
  adminContainerAction,
  adminContainerName,
  adminDeleteContainer,
  adoptContainer,
  bulkContainerAction,
  fetchScreenshotState,
  filterAndSortAdminDockers,
  indexAdminDockers,
  requestScreenshot,
  useAdminDockers,
  type AdminContainerAction,
  type AdminDocker,
  type AdminDockerColumn,
  type AdminDockerFilters,
  type AdminDockerSort,
  type ScreenshotState,
} from '../../api/queries/adminDockers.ts';
import { failureMessage } from '../../api/queries/dockers.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { AGENT_UNREACHABLE_MESSAGE } from '@devplein/contract/messages';
import type { AdminDockersPageViewProps } from './AdminDockersPageView.tsx';

/** A row's last outcome (a bulk action or a failed row action), shown under its status. */
export interface RowResult {
  ok: boolean;
  text: string;
}

/** Spec-independent fallback when a 503 comes without a message. */
export const UNAVAILABLE_TEXT = AGENT_UNREACHABLE_MESSAGE;

const DONE_TEXT: Record<AdminContainerAction, string> = {
  start: 'is gestart',
  stop: 'is gestopt',
  pause: 'is gepauzeerd',
  unpause: 'draait weer',
  restart: 'is herstart',
};

/** How often a running capture's state is asked for, and for how long at most. */
const SCREENSHOT_POLL_MS = 1_000;
const SCREENSHOT_POLL_LIMIT_MS = 120_000;
export const SCREENSHOT_UNAVAILABLE_TEXT = 'de screenshotdienst van de dockerserver is niet bereikbaar. Probeer het later opnieuw.';

const errorText = (failure: unknown): string =>
  failure instanceof ApiError && failure.status === 503 ? failure.message || UNAVAILABLE_TEXT : failureMessage(failure);

/**
 * State and actions of /admin/dockers: the list is loaded once and sorted and filtered in the
 * browser (indexed and memoised: 400 rows stay instant); each action updates its row from the
 * answer, and 'ververs screenshot' polls the capture's state until it is done. Returns the view's props.
 */
export function useAdminDockerActions(): AdminDockersPageViewProps {
  const { data, error, isLoading, mutate } = useAdminDockers();
  const [filters, setFilters] = useState<AdminDockerFilters>(EMPTY_FILTERS);
  const [sort, setSort] = useState<AdminDockerSort>({ column: 'name', direction: 'asc' });
  const deferredFilters = useDeferredValue(filters);
  const indexed = useMemo(() => indexAdminDockers(data ?? []), [data]);
  const rows = useMemo(() => filterAndSortAdminDockers(indexed, deferredFilters, sort), [indexed, deferredFilters, sort]);

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [results, setResults] = useState<ReadonlyMap<string, RowResult>>(new Map());
  const [message, setMessage] = useState<RowResult | null>(null);
  const [bulkBusy, setBulkBusy] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState<string | null>(null);
  const [pickingOwner, setPickingOwner] = useState<string | null>(null);
  const [screenshotBusy, setScreenshotBusy] = useState<ReadonlySet<string>>(new Set());
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const markBusy = useCallback((name: string, on: boolean) => {
    setBusy((current) => {
      const next = new Set(current);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });
  }, []);

  const setResult = useCallback((name: string, result: RowResult | null) => {
    setResults((current) => {
      const next = new Map(current);
      if (result === null) next.delete(name);
      else next.set(name, result);
      return next;
    });
  }, []);

  /** Puts changed containers into the cached list by name (no reload: the answer is the truth). */
  const patchRows = useCallback(
    (patch: (docker: AdminDocker, name: string) => AdminDocker | null) =>
      mutate(
        (current) =>
          current?.flatMap((docker) => {
            const next = patch(docker, adminContainerName(docker));
            return next === null ? [] : [next];
          }),
        { revalidate: false },
      ),
    [mutate],
  );

  const onAction = useCallback(
    async (name: string, action: AdminContainerAction) => {
      markBusy(name, true);
      setMessage(null);
      setResult(name, null);
      try {
        const [updated] = await adminContainerAction(name, action);
        if (updated !== undefined) await patchRows((docker, rowName) => (rowName === name ? updated : docker));
        setMessage({ ok: true, text: `${name} ${DONE_TEXT[action]}.` });
      } catch (failure) {
        const text = errorText(failure);
        setResult(name, { ok: false, text: `${ADMIN_ACTION_LABELS[action]} mislukt: ${text}` });
        setMessage({ ok: false, text: `${name}: ${text}` });
      } finally {
        markBusy(name, false);
      }
    },
    [markBusy, patchRows, setResult],
  );

  const onConfirmDelete = useCallback(
    async (name: string) => {
      markBusy(name, true);
      setMessage(null);
      try {
        await adminDeleteContainer(name);
        await patchRows((docker, rowName) => (rowName === name ? null : docker));
        setSelected((current) => {
          const next = new Set(current);
          next.delete(name);
          return next;
        });
        setConfirmingDelete(null);
        setMessage({ ok: true, text: `${name} is verwijderd.` });
      } catch (failure) {
        setConfirmingDelete(null);
        setMessage({ ok: false, text: `${name}: ${errorText(failure)}` });
      } finally {
        markBusy(name, false);
      }
    },
    [markBusy, patchRows],
  );

  const onOwnerPicked = useCallback(
    async (name: string, user: UserSearchHit) => {
      markBusy(name, true);
      setMessage(null);
      try {
        const updated = await adoptContainer(name, user.id);
        await patchRows((docker, rowName) => (rowName === name ? updated : docker));
        setPickingOwner(null);
        setMessage({ ok: true, text: `${name} is nu van ${user.name}.` });
      } catch (failure) {
        setMessage({ ok: false, text: `${name}: ${errorText(failure)}` });
      } finally {
        markBusy(name, false);
      }
    },
    [markBusy, patchRows],
  );

  const onBulk = useCallback(
    async (action: 'start' | 'stop') => {
      const names = [...selected];
      if (names.length === 0) return;
      setBulkBusy(true);
      setMessage(null);
      try {
        const outcome = await bulkContainerAction(names, action);
        const byName = new Map(outcome.map((result) => [result.name, result]));
        await patchRows((docker, rowName) => {
          const result = byName.get(rowName);
          if (result === undefined || !result.ok) return docker;
          return { ...docker, State: result.State ?? docker.State, Status: result.Status ?? docker.Status };
        });
        setResults((current) => {
          const next = new Map(current);
          for (const result of outcome) {
            next.set(result.name, result.ok ? { ok: true, text: action === 'start' ? 'Gestart' : 'Gestopt' } : { ok: false, text: result.message ?? 'Mislukt' });
          }
          return next;
        });
        const failed = outcome.filter((result) => !result.ok).length;
        const verb = action === 'start' ? 'Starten' : 'Stoppen';
        setMessage({
          ok: failed === 0,
          text: `${verb}: ${outcome.length - failed} gelukt${failed > 0 ? `, ${failed} mislukt (zie de rijen)` : ''}.`,
        });
      } catch (failure) {
        setMessage({ ok: false, text: errorText(failure) });
      } finally {
        setBulkBusy(false);
      }
    },
    [selected, patchRows],
  );

  /** 'ververs screenshot': asks for a capture, then follows its state until it is done. */
  const onScreenshot = useCallback(
    async (name: string, projectId: number) => {
      const put = (state: ScreenshotState) => patchRows((docker, rowName) => (rowName === name ? { ...docker, screenshot: state } : docker));
      setScreenshotBusy((current) => new Set(current).add(name));
      setResult(name, null);
      try {
        let state = await requestScreenshot(projectId);
        // The answer is the state from just before the capture; one the agent could not run at
        // all (agent or browser down) records nothing, so lastAttemptAt stays the same.
        const attemptBefore = state.lastAttemptAt;
        await put(state);
        const giveUpAt = Date.now() + SCREENSHOT_POLL_LIMIT_MS;
        while (state.inFlight && mounted.current && Date.now() < giveUpAt) {
          await new Promise((resolve) => setTimeout(resolve, SCREENSHOT_POLL_MS));
          state = await fetchScreenshotState(projectId);
          await put(state);
        }
        if (!mounted.current) return;
        if (!state.inFlight) {
          setMessage(
            state.lastAttemptAt === null || state.lastAttemptAt === attemptBefore
              ? { ok: false, text: `Screenshot van ${name} kon niet worden gemaakt: ${SCREENSHOT_UNAVAILABLE_TEXT}` }
              : state.lastError === null
                ? { ok: true, text: `Nieuwe screenshot van ${name} gemaakt.` }
                : { ok: false, text: `Screenshot van ${name} mislukt: ${state.lastError}` },
          );
        }
      } catch (failure) {
        if (!mounted.current) return;
        const text = errorText(failure);
        setResult(name, { ok: false, text: `Screenshot mislukt: ${text}` });
        setMessage({ ok: false, text: `${name}: ${text}` });
      } finally {
        if (mounted.current) {
          setScreenshotBusy((current) => {
            const next = new Set(current);
            next.delete(name);
            return next;
          });
        }
      }
    },
    [patchRows, setResult],
  );

  const onSort = useCallback((column: AdminDockerColumn) => {
    setSort((current) =>
      current.column === column ? { column, direction: current.direction === 'asc' ? 'desc' : 'asc' } : { column, direction: 'asc' },
    );
  }, []);

  const onToggleSelect = useCallback((name: string) => {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  }, []);

  const onSelectAll = useCallback((names: string[], checked: boolean) => {
    setSelected((current) => {
      const next = new Set(current);
      for (const name of names) {
        if (checked) next.add(name);
        else next.delete(name);
      }
      return next;
    });
  }, []);

  const runAction = useCallback((name: string, action: AdminContainerAction) => void onAction(name, action), [onAction]);
  const runDelete = useCallback((name: string) => void onConfirmDelete(name), [onConfirmDelete]);
  const runAdopt = useCallback((name: string, user: UserSearchHit) => void onOwnerPicked(name, user), [onOwnerPicked]);
  const runScreenshot = useCallback((name: string, projectId: number) => void onScreenshot(name, projectId), [onScreenshot]);

  const loadError =
    data === undefined && error !== undefined
      ? error instanceof ApiError && error.status === 503
        ? { text: error.message || UNAVAILABLE_TEXT, unavailable: true }
        : { text: 'De dockers konden niet worden geladen. Probeer het later opnieuw.', unavailable: false }
      : null;

  return {
    loading: isLoading && data === undefined,
    loadError,
    onReload: () => void mutate(),
    total: data?.length ?? 0,
    showHost: new Set((data ?? []).map((docker) => docker.host)).size > 1,
    rows,
    filters,
    onFilterChange: (column, value) => setFilters((current) => ({ ...current, [column]: value })),
    sort,
    onSort,
    selected,
    onToggleSelect,
    onSelectAll,
    busy,
    results,
    message,
    bulkBusy,
    onBulk: (action) => void onBulk(action),
    onAction: runAction,
    confirmingDelete,
    onAskDelete: setConfirmingDelete,
    onConfirmDelete: runDelete,
    pickingOwner,
    onPickOwner: setPickingOwner,
    onOwnerPicked: runAdopt,
    screenshotBusy,
    onScreenshot: runScreenshot,
  };
}

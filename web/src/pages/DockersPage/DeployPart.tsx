import { useCallback, useEffect, useRef, useState } from 'react';
import { useSWRConfig } from 'swr';
import { ApiError } from '../../api/client.ts';
import {
  appendLogLines,
  applyDeployToHistory,
  deployIsActive,
  deployPanelKey,
  makeDeployKey,
  newWebhookSecret,
  rollBackTo,
  saveDeploySettings,
  startDeploy,
  useDeployDetail,
  useDeployPanel,
  type DeployLogLine,
  type DeploySettingsInput,
  type DockerDeploySummary,
  type ProjectDeploy,
  type ProjectDeployPanel,
} from '../../api/queries/deploys.ts';
import { STATE_AWAITING, STATE_NOT_CREATED, STATE_REJECTED, STATE_UNREACHABLE, failureMessage, type UserDocker } from '../../api/queries/dockers.ts';
import type { DeployLogEvent } from '@devplein/contract/deploys';
import { DeployDetailsView } from './DeployDetailsView.tsx';
import { DeployPartView } from './DeployPartView.tsx';

/** How often the relative times ('3 minuten geleden') move on. */
const NOW_TICK_MS = 30_000;

function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(new Date()), NOW_TICK_MS);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** Why 'Bijwerken' cannot be used on this card now; null when it can. */
export function deployBlockedReason(docker: Pick<UserDocker, 'State' | 'project'>): string | null {
  if (docker.State === STATE_REJECTED || docker.project.validated === false) return 'Dit project is afgekeurd: bijwerken kan niet.';
  if (docker.State === STATE_AWAITING || docker.project.validated === null) return 'Bijwerken kan pas als een docent je project heeft goedgekeurd.';
  if (docker.State === STATE_NOT_CREATED) return 'Maak eerst de docker aan: je repository wordt er dan meteen in gezet.';
  if (docker.State === STATE_UNREACHABLE) return 'De dockerserver is nu niet bereikbaar. Probeer het straks opnieuw.';
  return null;
}

/**
 * The newest deploy's log for the card: fetched once its deploy runs (or failed), then the live
 * lines of DeployLog appended (`onLog`, fed by the card's channel). When the deploy finishes the
 * whole log is fetched again, so what stays on the card is the server's complete log.
 */
export function useDeployLog(projectId: number, latest: ProjectDeploy | null): { lines: DeployLogLine[]; onLog: (event: DeployLogEvent) => void } {
  const logDeployId = latest !== null && (deployIsActive(latest) || latest.status === 'failed') ? latest.id : null;
  const detail = useDeployDetail(projectId, logDeployId);
  const [log, setLog] = useState<{ deployId: number | null; lines: DeployLogLine[] }>({ deployId: null, lines: [] });

  useEffect(() => {
    if (detail.data !== undefined) setLog({ deployId: detail.data.id, lines: appendLogLines([], detail.data.log) });
  }, [detail.data]);

  // Finished (running → failed or deployed): the server's log is complete now.
  const status = latest?.status;
  const previousStatus = useRef(status);
  const { mutate } = detail;
  useEffect(() => {
    const was = previousStatus.current;
    previousStatus.current = status;
    if (logDeployId !== null && was !== undefined && status !== undefined && deployIsActive({ status: was }) && !deployIsActive({ status })) void mutate();
  }, [status, logDeployId, mutate]);

  const latestId = useRef(latest?.id ?? null);
  useEffect(() => {
    latestId.current = latest?.id ?? null;
  });
  const onLog = useCallback((event: DeployLogEvent) => {
    // Lines of an older deploy arriving late are not the card's log any more.
    if (latestId.current !== null && event.deployId < latestId.current) return;
    setLog((current) =>
      current.deployId === event.deployId
        ? { deployId: event.deployId, lines: appendLogLines(current.lines, event.lines) }
        : { deployId: event.deployId, lines: appendLogLines([], event.lines) },
    );
  }, []);

  return { lines: log.deployId === logDeployId ? log.lines : [], onLog };
}

/**
 * What to do with a deploy's new state (live, or the answer to 'Bijwerken'): the page's list gets
 * it (the card's commit and status follow) and an open panel's history too.
 */
export function useDeployChanged(projectId: number, onDeployChanged: ((projectId: number, deploy: ProjectDeploy) => void) | undefined) {
  const { mutate } = useSWRConfig();
  return useCallback(
    (deploy: ProjectDeploy) => {
      onDeployChanged?.(projectId, deploy);
      void mutate<ProjectDeployPanel>(
        deployPanelKey(projectId),
        (panel) => (panel === undefined ? undefined : { ...panel, deploys: applyDeployToHistory(panel.deploys, deploy) }),
        { revalidate: false },
      );
    },
    [mutate, onDeployChanged, projectId],
  );
}

export interface DeployPartProps {
  docker: UserDocker;
  deploy: DockerDeploySummary;
  log: DeployLogLine[];
  onDeployChanged: (deploy: ProjectDeploy) => void;
  /** Reload the page's list quietly (the branch shown on the card changed). */
  onRefresh: () => void;
}

/** The git-deploy part of a card: 'Bijwerken', and the Git-deploy details (asked for when opened). */
export function DeployPart({ docker, deploy, log, onDeployChanged, onRefresh }: DeployPartProps) {
  const projectId = docker.project.id;
  const now = useNow();
  const [open, setOpen] = useState(false);
  const panel = useDeployPanel(projectId, open);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [savingSettings, setSavingSettings] = useState(false);
  const [settingsErrors, setSettingsErrors] = useState<Record<string, string[]>>({});
  const [settingsSaved, setSettingsSaved] = useState(false);
  const [renewingSecret, setRenewingSecret] = useState(false);
  const [makingKey, setMakingKey] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);

  const ask = async (request: () => Promise<ProjectDeploy | null>, report: (message: string | null) => void) => {
    setStarting(true);
    report(null);
    try {
      const deploy = await request();
      if (deploy) onDeployChanged(deploy);
    } catch (failure) {
      report(failureMessage(failure, 'Bijwerken lukte niet. Probeer het nog eens.'));
    } finally {
      setStarting(false);
    }
  };

  const saveSettings = async (input: DeploySettingsInput) => {
    setSavingSettings(true);
    setSettingsErrors({});
    setSettingsSaved(false);
    setActionError(null);
    try {
      await panel.mutate(await saveDeploySettings(projectId, input), { revalidate: false });
      setSettingsSaved(true);
      onRefresh();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 422 && Object.keys(failure.fieldErrors).length > 0) setSettingsErrors(failure.fieldErrors);
      else setActionError(failureMessage(failure, 'Opslaan lukte niet. Probeer het nog eens.'));
    } finally {
      setSavingSettings(false);
    }
  };

  /** A panel action whose answer is the new panel (a new webhook secret, a deploy key made). */
  const panelAction = async (request: () => Promise<ProjectDeployPanel>, setBusy: (busy: boolean) => void, failed: string) => {
    setBusy(true);
    setActionError(null);
    try {
      await panel.mutate(await request(), { revalidate: false });
    } catch (failure) {
      setActionError(failureMessage(failure, failed));
    } finally {
      setBusy(false);
    }
  };
  const renewSecret = () => panelAction(() => newWebhookSecret(projectId), setRenewingSecret, 'Een nieuw geheim maken lukte niet. Probeer het nog eens.');
  const makeKey = () => panelAction(() => makeDeployKey(projectId), setMakingKey, 'De deploy key maken lukte niet. Probeer het nog eens.');

  const blockedReason = deployBlockedReason(docker);
  return (
    <DeployPartView
      deploy={deploy}
      log={log}
      blockedReason={blockedReason}
      starting={starting}
      error={error}
      now={now}
      onDeploy={() => void ask(() => startDeploy(projectId), setError)}
      details={
        <DeployDetailsView
          open={open}
          onToggle={() => setOpen((was) => !was)}
          panel={panel.data}
          loadError={panel.error === undefined ? null : failureMessage(panel.error, 'De gegevens voor git-deploy konden niet worden geladen.')}
          current={deploy.current}
          deployBusy={starting || deployIsActive(deploy.latest) || blockedReason !== null}
          now={now}
          savingSettings={savingSettings}
          settingsErrors={settingsErrors}
          settingsSaved={settingsSaved}
          renewingSecret={renewingSecret}
          makingKey={makingKey}
          actionError={actionError}
          onSaveSettings={(input) => void saveSettings(input)}
          onNewSecret={() => void renewSecret()}
          onMakeKey={() => void makeKey()}
          onRollBack={(deployId) => void ask(() => rollBackTo(projectId, deployId), setActionError)}
        />
      }
    />
  );
}

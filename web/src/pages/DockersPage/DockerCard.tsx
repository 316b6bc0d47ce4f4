import { useEffect, useState } from 'react';
import { containerName, createContainer, deleteUserProject, failureMessage, pullImage, pullProgressTracker, resetWordpressPassword, runContainerAction, type PullProgress, type UserDocker } from '../../api/queries/dockers.ts';
import { type CardAction } from './docker-card-texts.ts';
import { LogViewer } from '../../components/LogViewer.tsx';
import { useContainerChannel } from '../../realtime/useContainerChannel.ts';
import { DockerCardView } from './DockerCardView.tsx';
import { useContainerStats } from '../../api/queries/containerStats.ts';
import { ContainerStatsView } from './ContainerStatsView.tsx';
import type { ProjectDeploy } from '../../api/queries/deploys.ts';
import { DeployPart, useDeployChanged, useDeployLog } from './DeployPart.tsx';

/** The live use of a running card (its own component: polling only while the card runs). */
function RunningStats({ name }: { name: string }) {
  const { data } = useContainerStats(name);
  return <ContainerStatsView stats={data} />;
}

/** How long a card stays busy after a live 'action' event when no new state follows. */
const REMOTE_BUSY_MS = 30_000;

export interface DockerCardProps {
  docker: UserDocker;
  /** The card's new state (from an action's answer or a live event); the page puts it in its list. */
  onChanged: (docker: UserDocker) => void;
  /** The project is gone (deleted). */
  onRemoved: (projectId: number) => void;
  /** Reload the list quietly (after a live event, so Status follows State). */
  onRefresh: () => void;
  /** The card's live channel is subscribed: changes before that moment reached nobody. */
  onSubscribed?: () => void;
  /** A git deploy of the project changed (live, or the answer to 'Bijwerken'); the page folds it into the card's summary. */
  onDeployChanged?: (projectId: number, deploy: ProjectDeploy) => void;
}

/**
 * One card's behaviour: its actions (spec §4) with the answer's first item as the new state, the
 * create flow (pull the image with progress, then make the container), delete after a
 * confirmation, the live channel, the logs dialog and the WordPress password.
 */
export function DockerCard({ docker, onChanged, onRemoved, onRefresh, onSubscribed, onDeployChanged }: DockerCardProps) {
  const name = containerName(docker);
  const [busy, setBusy] = useState(false);
  const [remoteBusy, setRemoteBusy] = useState(false);
  const [pull, setPull] = useState<PullProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [password, setPassword] = useState<{ username: string; password: string } | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [logsOpen, setLogsOpen] = useState(false);
  const deployLog = useDeployLog(docker.project.id, docker.deploy?.latest ?? null);
  const deployChanged = useDeployChanged(docker.project.id, onDeployChanged);

  useContainerChannel(
    name,
    (message) => {
      if (message === 'action') {
        setRemoteBusy(true);
        return;
      }
      setRemoteBusy(false);
      onChanged({ ...docker, State: message });
      onRefresh();
    },
    onSubscribed,
    { onLog: deployLog.onLog, onUpdated: ({ deploy }) => deployChanged(deploy) },
  );

  useEffect(() => {
    if (!remoteBusy) return;
    const timer = window.setTimeout(() => setRemoteBusy(false), REMOTE_BUSY_MS);
    return () => window.clearTimeout(timer);
  }, [remoteBusy]);

  /** Spec §4: the new State and Status come from the first item of the answer. */
  const applyAnswer = (list: UserDocker[]) => {
    const first = list[0];
    if (first === undefined) return;
    // An action's answer may leave out the git-deploy summary: the card keeps the one it has (live updates keep it current).
    onChanged(
      first.project?.id === docker.project.id
        ? { ...docker, ...first, deploy: first.deploy ?? docker.deploy }
        : { ...docker, State: first.State, Status: first.Status },
    );
  };

  const create = async () => {
    if (docker.Image !== '') {
      const track = pullProgressTracker();
      setPull({ status: 'Image ophalen…', fraction: null });
      await pullImage({ image: docker.Image, project_id: docker.project.id }, (event) => setPull(track(event)));
    }
    setPull({ status: 'Docker aanmaken…', fraction: 1 });
    applyAnswer(await createContainer(docker.project.id));
  };

  const act = async (action: CardAction) => {
    if (action === 'delete') {
      setConfirmingDelete(true);
      setError(null);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      if (action === 'create') await create();
      else applyAnswer(await runContainerAction(docker.project.id, action));
    } catch (failure) {
      setError(failureMessage(failure));
    } finally {
      setBusy(false);
      setPull(null);
      // Our own action's live 'action' event must not keep the card pulsing after the answer.
      setRemoteBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteUserProject(docker.project.id);
      onRemoved(docker.project.id);
    } catch (failure) {
      setError(failureMessage(failure, 'Verwijderen lukte niet. Probeer het nog eens.'));
      setConfirmingDelete(false);
      setBusy(false);
    }
  };

  const resetPassword = async () => {
    setBusy(true);
    setError(null);
    try {
      setPassword(await resetWordpressPassword(docker.project.name));
    } catch (failure) {
      setError(failureMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <DockerCardView
        docker={docker}
        busy={busy || remoteBusy}
        pull={pull}
        error={error}
        password={password}
        confirmingDelete={confirmingDelete}
        onAction={(action) => void act(action)}
        onCancelDelete={() => setConfirmingDelete(false)}
        onConfirmDelete={() => void remove()}
        onShowLogs={() => setLogsOpen(true)}
        onResetPassword={() => void resetPassword()}
        onDismissPassword={() => setPassword(null)}
        stats={docker.State === 'running' ? <RunningStats name={name} /> : null}
        deploy={
          docker.deploy === null ? null : (
            <DeployPart docker={docker} deploy={docker.deploy} log={deployLog.lines} onDeployChanged={deployChanged} onRefresh={onRefresh} />
          )
        }
      />
      {logsOpen && <LogViewer name={name} onClose={() => setLogsOpen(false)} />}
    </>
  );
}

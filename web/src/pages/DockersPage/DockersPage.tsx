import { useCallback, useEffect, useRef } from 'react';
import { failureMessage, useUserDockers, type UserDocker } from '../../api/queries/dockers.ts';
import { applyDeployUpdate, mergeDeploySummaries, type ProjectDeploy } from '../../api/queries/deploys.ts';
import { useRealtimeReconnect, useRealtimeStatus } from '../../realtime/useContainerChannel.ts';
import { DockerCard } from './DockerCard.tsx';
import { DockersPageView } from './DockersPageView.tsx';

/** Subscriptions succeed one per card within a few milliseconds of each other: wait for the burst. */
const SUBSCRIBED_RELOAD_DELAY_MS = 150;

/**
 * /dockers (route mydockers): the signed-in user's projects with their containers. Cards change
 * the cached list in place; a live event or a realtime reconnect reloads it quietly, and while
 * the realtime connection is down the list is asked for every few seconds. Once the cards' live
 * channels are subscribed the list is reloaded once more: a change between the list's answer and
 * the subscriptions was sent to nobody (and the page would show the old state until the next one).
 */
export function DockersPage() {
  const realtime = useRealtimeStatus();
  const { dockers, error, mutate } = useUserDockers({ realtimeDown: realtime === 'down' });

  const refresh = useCallback(() => void mutate(), [mutate]);
  useRealtimeReconnect(refresh);

  // Every card reports its subscription; one reload after the last of a burst covers them all.
  const subscribedReload = useRef<number | null>(null);
  const reloadOnceSubscribed = useCallback(() => {
    if (subscribedReload.current !== null) window.clearTimeout(subscribedReload.current);
    subscribedReload.current = window.setTimeout(() => {
      subscribedReload.current = null;
      refresh();
    }, SUBSCRIBED_RELOAD_DELAY_MS);
  }, [refresh]);
  useEffect(
    () => () => {
      if (subscribedReload.current !== null) window.clearTimeout(subscribedReload.current);
    },
    [],
  );

  // A card's new state (an answer, a live state change); its deploys merge with the list's, which
  // live events may have moved on meanwhile.
  const changed = useCallback(
    (updated: UserDocker) =>
      void mutate(
        (current) =>
          current?.map((docker) =>
            docker.project.id === updated.project.id ? { ...updated, deploy: mergeDeploySummaries(docker.deploy, updated.deploy) } : docker,
          ),
        { revalidate: false },
      ),
    [mutate],
  );
  // A deploy's new state (live or an answer) goes into the cached list, so the card's commit changes without a reload.
  const deployChanged = useCallback(
    (projectId: number, deploy: ProjectDeploy) =>
      void mutate(
        (current) =>
          current?.map((docker) =>
            docker.project.id === projectId && docker.deploy !== null ? { ...docker, deploy: applyDeployUpdate(docker.deploy, deploy) } : docker,
          ),
        { revalidate: false },
      ),
    [mutate],
  );
  const removed = useCallback(
    (projectId: number) => void mutate((current) => current?.filter((docker) => docker.project.id !== projectId), { revalidate: false }),
    [mutate],
  );

  return (
    <DockersPageView
      dockers={dockers}
      loadError={error === undefined ? null : failureMessage(error, 'Je dockers konden niet worden geladen. Probeer het later opnieuw.')}
      renderCard={(docker) => (
        <DockerCard
          key={docker.project.id}
          docker={docker}
          onChanged={changed}
          onRemoved={removed}
          onRefresh={refresh}
          onSubscribed={reloadOnceSubscribed}
          onDeployChanged={deployChanged}
        />
      )}
    />
  );
}

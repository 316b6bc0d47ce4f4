import { useCallback } from 'react';
import { failureMessage, useUserDockers, type UserDocker } from '../../api/queries/dockers.ts';
import { useRealtimeReconnect, useRealtimeStatus } from '../../realtime/useContainerChannel.ts';
import { DockerCard } from './DockerCard.tsx';
import { DockersPageView } from './DockersPageView.tsx';

/**
 * /dockers (route mydockers): the signed-in user's projects with their containers. Cards change
 * the cached list in place; a live event or a realtime reconnect reloads it quietly, and while
 * the realtime connection is down the list is asked for every few seconds.
 */
export function DockersPage() {
  const realtime = useRealtimeStatus();
  const { dockers, error, mutate } = useUserDockers({ realtimeDown: realtime === 'down' });

  const refresh = useCallback(() => void mutate(), [mutate]);
  useRealtimeReconnect(refresh);

  const changed = useCallback(
    (updated: UserDocker) =>
      void mutate((current) => current?.map((docker) => (docker.project.id === updated.project.id ? updated : docker)), {
        revalidate: false,
      }),
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
        <DockerCard key={docker.project.id} docker={docker} onChanged={changed} onRemoved={removed} onRefresh={refresh} />
      )}
    />
  );
}

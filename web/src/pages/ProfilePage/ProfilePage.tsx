import { useParams } from 'react-router-dom';
import { ApiError } from '../../api/client.ts';
import { useProfile, useProjectRequests } from '../../api/queries/profile.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { canSeeProjectRequestCounter, canSeeSshKeys, isAdmin } from '../../layout/roles.ts';
import { ProfilePageView } from './ProfilePageView.tsx';
import { SshKeysSection } from './SshKeysSection.tsx';
import { LicensesSection } from './LicensesSection.tsx';

/**
 * /profile (own) and /profile/{id}/{name} (anyone's, one's own too: the top menu links there).
 * The owner whose first team is team 1 sees the number of new project requests; developers
 * see their SSH keys on their own profile (spec §2, §6).
 */
export function ProfilePage() {
  const { id } = useParams();
  const { user: viewer } = useCurrentUser();
  const { data: profile, error, isLoading } = useProfile(id);
  const profileId = profile?.id ?? -1;
  const showCounter = canSeeProjectRequestCounter(viewer, profileId);
  const { data: requests } = useProjectRequests(showCounter);
  const notFound = error instanceof ApiError && (error.status === 404 || error.status === 422);
  return (
    <ProfilePageView
      profile={profile}
      linkToRequests={isAdmin(viewer)}
      loading={isLoading}
      notFound={notFound}
      failed={error !== undefined && !notFound}
      projectRequestCount={showCounter ? (requests?.length ?? null) : undefined}
      sshKeys={
        <>
          {canSeeSshKeys(viewer, profileId) && <SshKeysSection />}
          {/* Licence requests: on one's own profile, for every activated user (students and teachers). */}
          {viewer?.id === profileId && <LicensesSection />}
        </>
      }
    />
  );
}

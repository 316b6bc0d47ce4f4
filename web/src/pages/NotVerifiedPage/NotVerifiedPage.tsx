import { Notice } from '../../components/Notice.tsx';

/** Where not-activated accounts (no email_verified_at) end up (spec §2). */
export function NotVerifiedPage() {
  return (
    <Notice title="Sorry je account is nog niet geactiveerd!" icon="lock" testId="not-verified">
      <p className="notice-lead">Vraag een vak docent om je account te activeren.</p>
    </Notice>
  );
}

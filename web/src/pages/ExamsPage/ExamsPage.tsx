import { Notice } from '../../components/Notice.tsx';

/** /exams: a placeholder until the school publishes exam information here (spec §2 Exams). */
export function ExamsPage() {
  return (
    <Notice title="Examens" icon="clock" testId="exams">
      <p className="notice-lead">Hier komt binnenkort informatie over de examens.</p>
      <p>Tot die tijd hoor je van je docent wanneer en waar je examens zijn.</p>
    </Notice>
  );
}

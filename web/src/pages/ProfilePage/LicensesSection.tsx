import { useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { requestLicense, useOwnLicenses, withdrawLicense } from '../../api/queries/licenses.ts';
import {
  LICENSE_DESCRIPTION_MAX,
  LICENSE_DESCRIPTION_MIN,
  LICENSE_NAME_MAX,
  LICENSE_NAME_MIN,
} from '@devplein/contract/validation/licensesAndIntroducees';
import { LicensesSectionView } from './LicensesSectionView.tsx';

/**
 * The signed-in user's licence requests on their own profile, with a form to ask for one
 * (beyond the spec: students and teachers request; an admin's tick on /admin/licenses approves).
 */
export function LicensesSection() {
  const { data: licenses, error, mutate } = useOwnLicenses();
  const [license, setLicense] = useState('');
  const [description, setDescription] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [withdrawingId, setWithdrawingId] = useState<number | null>(null);
  const [withdrawError, setWithdrawError] = useState<string | null>(null);

  const licenseLength = license.trim().length;
  const descriptionLength = description.trim().length;
  const canSave =
    licenseLength >= LICENSE_NAME_MIN &&
    licenseLength <= LICENSE_NAME_MAX &&
    descriptionLength >= LICENSE_DESCRIPTION_MIN &&
    descriptionLength <= LICENSE_DESCRIPTION_MAX;

  const submit = async () => {
    if (!canSave) return;
    setSaving(true);
    setFormError(null);
    try {
      await mutate(await requestLicense({ license: license.trim(), description: description.trim() }), { revalidate: false });
      setLicense('');
      setDescription('');
      setSaved(true);
    } catch (failure) {
      setFormError(
        failure instanceof ApiError && failure.status === 422
          ? failure.fieldMessages() || failure.message
          : 'Aanvragen is niet gelukt. Probeer het later opnieuw.',
      );
    } finally {
      setSaving(false);
    }
  };

  const withdraw = async (id: number) => {
    setWithdrawingId(id);
    setWithdrawError(null);
    try {
      await mutate(await withdrawLicense(id), { revalidate: false });
    } catch (failure) {
      setWithdrawError(
        failure instanceof ApiError && failure.status === 422 ? failure.message : 'Intrekken is niet gelukt. Probeer het later opnieuw.',
      );
      await mutate();
    } finally {
      setWithdrawingId(null);
    }
  };

  return (
    <LicensesSectionView
      licenses={licenses}
      loadFailed={error !== undefined && licenses === undefined}
      license={license}
      description={description}
      formError={formError}
      saved={saved}
      canSave={canSave}
      saving={saving}
      withdrawingId={withdrawingId}
      withdrawError={withdrawError}
      onLicenseChange={(value) => {
        setLicense(value);
        setSaved(false);
      }}
      onDescriptionChange={(value) => {
        setDescription(value);
        setSaved(false);
      }}
      onSubmit={() => void submit()}
      onWithdraw={(id) => void withdraw(id)}
    />
  );
}

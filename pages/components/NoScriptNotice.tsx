import { useT } from '../lib/i18n';
import { settings } from '../lib/site';

// NoScriptNotice tells a visitor whose browser runs no script that the
// form beside it cannot be sent, and how to reach the provider instead.
// The form still posts (never a GET: nothing typed lands in an address),
// and the API answers the same (formapi/formposts.go).
export function NoScriptNotice() {
  const { t } = useT();
  return (
    <noscript>
      <p className="notice note">{t('forms.noScript', { email: settings.provider.email, phone: settings.provider.phone })}</p>
    </noscript>
  );
}

import Feedback from '../islands/Feedback';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { settings } from '../lib/site';

// FeedbackPage is the /feedback-form route: the feedback form on a page
// of its own (SPEC §2).
export function FeedbackPage() {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t('feedbackForm.title')}</h1>
      <p className="lead">{t('feedbackForm.intro')}</p>
      <h2 className="form-heading">{t('feedback.title', { name: settings.provider.name })}</h2>
      <Island name="Feedback" component={Feedback} props={{}} />
    </section>
  );
}

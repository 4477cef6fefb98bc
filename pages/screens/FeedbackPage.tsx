import MessageSquareWarning from 'lucide-react/icons/message-square-warning';
import Feedback from '../islands/Feedback';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { settings } from '../lib/site';

// FeedbackPage is the /feedback-form route: the feedback form on a page
// of its own (SPEC §2).
export function FeedbackPage() {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('feedbackForm.title')} lead={t('feedbackForm.intro')} icon={MessageSquareWarning} kind="compact" />
      <section className="form-section-band" aria-labelledby="feedback-heading">
        <div className="form-card narrow">
          <h2 id="feedback-heading" className="form-heading">
            {t('feedback.title', { name: settings.provider.name })}
          </h2>
          <Island name="Feedback" component={Feedback} props={{}} />
        </div>
      </section>
    </>
  );
}

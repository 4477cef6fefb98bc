import { useT } from '../lib/i18n';
import FeedbackButton from '../islands/FeedbackButton';
import { Island } from '../lib/island';

// NotFound is the screen of every unknown path (SPEC §2), served with 404.
export function NotFound() {
  const { t } = useT();
  return (
    <section className="page not-found">
      <h1>{t('notFound.heading')}</h1>
      <p className="lead">{t('notFound.text')}</p>
      <Island name="FeedbackButton" component={FeedbackButton} props={{ errorType: '404' }} />
    </section>
  );
}

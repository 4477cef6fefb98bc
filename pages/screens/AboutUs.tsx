import Landmark from 'lucide-react/icons/landmark';
import { PageHead } from '../components/PageHead';
import { Partners } from '../components/Partners';
import { SignUpPrompt } from '../components/SignUpPrompt';
import { useT } from '../lib/i18n';
import { localePath } from '../lib/site';
import type { ScreenProps } from '../routes';
import { Prose } from './Prose';
import { ReadMore } from './ReadMore';

// AboutUs: the network's story collapsed behind Read more (SPEC §4), the
// three partner networks and the sign-up link (SPEC §2).
export function AboutUs({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('aboutUs.title')} lead={t('aboutUs.intro')} icon={Landmark} />
      <section className="prose" aria-label={t('aboutUs.title')}>
        <p>{t('aboutUs.summary')}</p>
        <ReadMore>
          <Prose text={t('aboutUs.story')} />
        </ReadMore>
      </section>
      <Partners headingId="about-partners" />
      <SignUpPrompt id="about-signup" title={t('aboutUs.signUpTitle')} text={t('aboutUs.signUpText')} link={t('aboutUs.signUpLink')} href={localePath(lang, '/registration')} />
    </>
  );
}

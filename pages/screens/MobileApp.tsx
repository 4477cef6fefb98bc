import Bell from 'lucide-react/icons/bell';
import Download from 'lucide-react/icons/download';
import MessagesSquare from 'lucide-react/icons/messages-square';
import Smartphone from 'lucide-react/icons/smartphone';
import Truck from 'lucide-react/icons/truck';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { settings } from '../lib/site';
import { Prose } from './Prose';

// APP_QR_IMAGE is the URL path of the QR code of the app's download link,
// which the generator draws at build time (generator/qrcode.go) and
// defines for the server bundle.
declare const APP_QR_IMAGE: string;

const features = [
  ['loads', Truck],
  ['chat', MessagesSquare],
  ['alerts', Bell],
] as const;

// MobileApp: the Android package download and its QR code (SPEC §2).
export function MobileApp() {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('mobileApp.title')} lead={t('mobileApp.intro')} icon={Smartphone} />
      <section className="split app-layout" aria-label={t('mobileApp.title')}>
        <ul className="feature-list">
          {features.map(([f, Icon]) => (
            <li key={f}>
              <span className="card-icon">
                <Icon className="icon" />
              </span>
              <span>{t(`mobileApp.features.${f}`)}</span>
            </li>
          ))}
        </ul>
        <div className="form-card app-download">
          <figure className="qr">
            <img src={APP_QR_IMAGE} alt={t('mobileApp.qrAlt')} width={200} height={200} loading="lazy" decoding="async" />
            <figcaption>{t('mobileApp.qrCaption')}</figcaption>
          </figure>
          <a className="button large" href={settings.app.androidURL} type="application/vnd.android.package-archive">
            <Download className="icon" />
            {t('mobileApp.download')}
          </a>
          <p className="hint">{t('mobileApp.requirements')}</p>
        </div>
        <div className="app-install">
          <h2>{t('mobileApp.installTitle')}</h2>
          <div className="prose">
            <Prose text={t('mobileApp.installSteps')} />
          </div>
        </div>
      </section>
    </>
  );
}

import { useT } from '../lib/i18n';
import { settings } from '../lib/site';
import { Prose } from './Prose';

// APP_QR_IMAGE is the URL path of the QR code of the app's download link,
// which the generator draws at build time (generator/qrcode.go) and
// defines for the server bundle.
declare const APP_QR_IMAGE: string;

const features = ['loads', 'chat', 'alerts'] as const;

// MobileApp: the Android package download and its QR code (SPEC §2).
export function MobileApp() {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t('mobileApp.title')}</h1>
      <p className="lead">{t('mobileApp.intro')}</p>
      <ul>
        {features.map((f) => (
          <li key={f}>{t(`mobileApp.features.${f}`)}</li>
        ))}
      </ul>
      <div className="app-download">
        <figure className="qr">
          <img src={APP_QR_IMAGE} alt={t('mobileApp.qrAlt')} width={200} height={200} />
          <figcaption>{t('mobileApp.qrCaption')}</figcaption>
        </figure>
        <div>
          <a className="button" href={settings.app.androidURL} type="application/vnd.android.package-archive">
            {t('mobileApp.download')}
          </a>
          <p className="hint">{t('mobileApp.requirements')}</p>
        </div>
      </div>
      <h2>{t('mobileApp.installTitle')}</h2>
      <Prose text={t('mobileApp.installSteps')} />
    </section>
  );
}

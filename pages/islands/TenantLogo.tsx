import { useEffect, useState } from 'react';
import { LogoMark } from '../components/Logo';
import { request } from '../lib/api';
import { settings } from '../lib/site';

interface LogoAnswer {
  logo: string; // "media-type:base64"
  theme: string;
  default: string; // Y or N
}

interface Branding {
  logo: string;
  theme: string;
  isDefault: string;
}

// tenantLabels reads the host as SPEC §1 does: the first label names the
// tenant for the logo call, the subdomain (or 'www' with fewer than three
// labels) for the alias lookup and the cache keys. IP addresses have none.
function tenantLabels(host: string): { domain: string; alias: string } | null {
  const labels = host.split('.');
  if (host.includes(':') || /^\d+$/.test(labels[0])) return null;
  return { domain: labels[0], alias: labels.length >= 3 ? labels[0] : 'www' };
}

// cached reads the session-storage entries of SPEC §3 (Logo, Theme,
// Default + label); null when this tab has not looked the tenant up yet.
function cached(alias: string): Branding | null {
  try {
    const logo = sessionStorage.getItem('Logo' + alias);
    if (logo === null) return null;
    return { logo, theme: sessionStorage.getItem('Theme' + alias) ?? '', isDefault: sessionStorage.getItem('Default' + alias) ?? '' };
  } catch {
    return null;
  }
}

function remember(alias: string, b: Branding) {
  try {
    sessionStorage.setItem('Logo' + alias, b.logo);
    sessionStorage.setItem('Theme' + alias, b.theme);
    sessionStorage.setItem('Default' + alias, b.isDefault);
  } catch {
    // Storage can be off: the next page looks the tenant up again.
  }
}

// lookUp asks the alias and logo calls; a failure is logged and yields an
// empty result (SPEC §7), which keeps the site's own brand.
async function lookUp(domain: string, alias: string): Promise<Branding> {
  try {
    const [, answer] = await Promise.all([request<string>(`/rest/creditor/alias/${encodeURIComponent(alias)}`), request<LogoAnswer>(`/api/logo?domain=${encodeURIComponent(domain)}`)]);
    return { logo: answer.logo, theme: answer.theme, isDefault: answer.default };
  } catch (err) {
    console.info('no tenant branding for', alias, err);
    return { logo: '', theme: '', isDefault: '' };
  }
}

// TenantLogo is the brand link of the navigation. The server renders the
// network's own brand; on a tenant's subdomain it shows the tenant's logo
// and applies its theme, unless the tenant's default flag is Y (it keeps
// the network's branding). The www host is the network itself.
export default function TenantLogo({ home }: { home: string }) {
  const [logo, setLogo] = useState('');
  useEffect(() => {
    const labels = tenantLabels(location.hostname);
    if (!labels || labels.alias === 'www') return;
    let live = true;
    const show = (b: Branding) => {
      if (!live || b.isDefault === 'Y' || !b.logo.includes(':')) return;
      if (b.theme) document.documentElement.dataset.theme = b.theme;
      const sep = b.logo.indexOf(':');
      setLogo(`data:${b.logo.slice(0, sep)};base64,${b.logo.slice(sep + 1)}`);
    };
    const known = cached(labels.alias);
    if (known) show(known);
    else
      lookUp(labels.domain, labels.alias).then((b) => {
        remember(labels.alias, b);
        show(b);
      });
    return () => {
      live = false;
    };
  }, []);
  return (
    <a className="brand" href={home}>
      {logo ? <img className="brand-logo" src={logo} alt="" /> : <LogoMark />}
      <span>{settings.name}</span>
    </a>
  );
}

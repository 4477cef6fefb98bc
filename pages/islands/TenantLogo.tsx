import { useEffect, useState } from 'react';
import { LogoMark } from '../components/Logo';
import { settings } from '../lib/site';
import { cached, lookUp, tenantLabels, type Branding } from '../lib/tenant';

// TenantLogo is the brand link of the navigation. The server renders the
// network's own brand; on a tenant's host (lib/tenant.ts) it shows the
// tenant's logo, named by the tenant's name in place of the network's,
// and applies its theme, unless the tenant's default flag is Y (it keeps
// the network's branding).
export default function TenantLogo({ home }: { home: string }) {
  const [tenant, setTenant] = useState<{ name: string; logo: string } | null>(null);
  useEffect(() => {
    const labels = tenantLabels(location.hostname);
    if (!labels) return;
    let live = true;
    const show = (b: Branding) => {
      if (!live || b.isDefault === 'Y' || !b.logo.includes(':')) return;
      if (b.theme) document.documentElement.dataset.theme = b.theme;
      const sep = b.logo.indexOf(':');
      setTenant({ name: b.name, logo: `data:${b.logo.slice(0, sep)};base64,${b.logo.slice(sep + 1)}` });
    };
    const known = cached(labels.alias);
    if (known) show(known);
    else lookUp(labels).then(show);
    return () => {
      live = false;
    };
  }, []);
  if (tenant) {
    return (
      <a className="brand" href={home}>
        <img className="brand-logo" src={tenant.logo} alt={tenant.name} />
        <span aria-hidden="true">{tenant.name}</span>
      </a>
    );
  }
  return (
    <a className="brand" href={home}>
      <LogoMark />
      <span>{settings.name}</span>
    </a>
  );
}

// Tenants (SPEC §1): the host name chooses them. The first label names
// the tenant for the logo call; the subdomain, or 'www' when the host has
// fewer than three labels, for the alias lookup and the session-storage
// cache (SPEC §3: Logo, Theme and Default, each keyed by that label; Name
// keeps the alias lookup's answer beside them). This file is shared by the
// client entry (which loads React on an island-less page only for a
// tenant's host) and the TenantLogo island, so it stays small and uses
// fetch directly.

export interface Branding {
  name: string;
  logo: string; // "media-type:base64", '' when there is none
  theme: string;
  isDefault: string; // Y: the tenant keeps the network's own branding
}

export interface TenantLabels {
  domain: string; // the logo call's label
  alias: string; // the alias lookup's label and the cache key
}

// tenantLabels reads a host name; IP addresses name no tenant.
export function tenantLabels(host: string): TenantLabels | null {
  const labels = host.split('.');
  if (host.includes(':') || /^\d+$/.test(labels[0])) return null;
  return { domain: labels[0], alias: labels.length >= 3 ? labels[0] : 'www' };
}

// cached is this tab's earlier answer for the alias, or null when it has
// not looked the host up yet. An empty logo means "no tenant here".
export function cached(alias: string): Branding | null {
  try {
    const logo = sessionStorage.getItem('Logo' + alias);
    if (logo === null) return null;
    const item = (prefix: string) => sessionStorage.getItem(prefix + alias) ?? '';
    return { name: item('Name'), logo, theme: item('Theme'), isDefault: item('Default') };
  } catch {
    return null;
  }
}

function remember(alias: string, b: Branding) {
  try {
    sessionStorage.setItem('Name' + alias, b.name);
    sessionStorage.setItem('Logo' + alias, b.logo);
    sessionStorage.setItem('Theme' + alias, b.theme);
    sessionStorage.setItem('Default' + alias, b.isDefault);
  } catch {
    // Storage can be off: the next page looks the host up again.
  }
}

const noTenant: Branding = { name: '', logo: '', theme: '', isDefault: '' };

async function answer(url: string): Promise<Response> {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res;
}

// aliasName asks the alias lookup (GET /rest/creditor/alias/{alias},
// read as text): the tenant's name, or '' when the host has none (the API
// answers 204 then). A failure yields the empty result (SPEC §7).
async function aliasName(alias: string): Promise<string> {
  try {
    return (await (await answer(`/rest/creditor/alias/${encodeURIComponent(alias)}`)).text()).trim();
  } catch (err) {
    console.info('no tenant for', alias, err);
    return '';
  }
}

interface LogoAnswer {
  logo: string;
  theme: string;
  default: string;
}

// lookUp resolves a host's branding: the alias lookup says whether it is
// a tenant's and gives the name, the logo call gives logo, theme and the
// default flag. Either failing yields no tenant, which is remembered too.
export async function lookUp({ domain, alias }: TenantLabels): Promise<Branding> {
  let b = noTenant;
  const name = await aliasName(alias);
  if (name) {
    try {
      const logo = (await (await answer(`/api/logo?domain=${encodeURIComponent(domain)}`)).json()) as LogoAnswer;
      b = { name, logo: logo.logo, theme: logo.theme, isDefault: logo.default };
    } catch (err) {
      console.info('no logo for', domain, err);
    }
  }
  remember(alias, b);
  return b;
}

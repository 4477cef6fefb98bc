// Structured data (schema.org JSON-LD) of the pages that have some: the
// organization on the home page, the questions of the FAQ, a news item's
// article and a member profile's breadcrumbs. render() (server.tsx) gives
// them to the generator, which writes each as a
// <script type="application/ld+json"> in the page's head: data, not a
// script, so the CSP has nothing to allow. URLs are absolute, on the
// build's base URL (settings.baseURL, which the build sets).
import type { Translator } from './i18n';
import type { NewsItem } from './news';
import { inLanguage, language, languages, localePath, settings, type Lang } from './site';

export type StructuredData = Record<string, unknown>;

const context = 'https://schema.org';

// pageURL is the absolute address of route in lang.
export function pageURL(lang: Lang, route: string): string {
  return settings.baseURL.replace(/\/+$/, '') + localePath(lang, route);
}

// logo is the mark as a file of its own (favicon.svg, at least 112 px
// as Google asks of a logo, since it is a vector).
const logo = () => settings.baseURL.replace(/\/+$/, '') + '/favicon.svg';

// organization is the network with the contact point the contact page
// names, for the home page.
export function organization(lang: Lang): StructuredData {
  const provider = inLanguage(settings.provider, lang);
  return {
    '@context': context,
    '@type': 'Organization',
    name: settings.name,
    legalName: settings.provider.name,
    url: pageURL(lang, '/'),
    logo: logo(),
    email: provider.email,
    telephone: provider.phone,
    address: provider.address,
    contactPoint: {
      '@type': 'ContactPoint',
      contactType: 'customer support',
      telephone: provider.phone,
      email: provider.email,
      url: pageURL(lang, '/contact-us'),
      areaServed: 'IN',
      availableLanguage: languages.map((l) => l.htmlLang),
    },
  };
}

// faqPage is the FAQ's questions with their answers as plain text (without
// the marks LinkedText turns into links).
export function faqPage(lang: Lang, items: { question: string; answer: string }[]): StructuredData {
  return {
    '@context': context,
    '@type': 'FAQPage',
    url: pageURL(lang, '/faq'),
    inLanguage: language(lang).htmlLang,
    mainEntity: items.map(({ question, answer }) => ({
      '@type': 'Question',
      name: question,
      acceptedAnswer: { '@type': 'Answer', text: answer.replace(/<\/?link>/g, '') },
    })),
  };
}

// headlineLength is the longest headline Google shows in full.
const headlineLength = 110;

// newsArticle is a news item on its page in lang, in the language of its
// text (English where it has no translation), by and from the network.
export function newsArticle(lang: Lang, route: string, item: NewsItem, description: string): StructuredData {
  const url = pageURL(lang, route);
  const network = { '@type': 'Organization', name: settings.name, url: pageURL(lang, '/') };
  const title = [...item.newsFeedTitle];
  return {
    '@context': context,
    '@type': 'NewsArticle',
    headline: title.length > headlineLength ? title.slice(0, headlineLength - 1).join('') + '…' : item.newsFeedTitle,
    description,
    url,
    mainEntityOfPage: url,
    inLanguage: language(item.lang).htmlLang,
    datePublished: item.postedAt,
    author: network,
    publisher: { ...network, logo: { '@type': 'ImageObject', url: logo() } },
  };
}

// breadcrumbs lead from the home page through the members' list to a
// member's profile.
export function memberBreadcrumbs(lang: Lang, route: string, name: string, t: Translator['t']): StructuredData {
  const trail = [
    { name: t('nav.home'), route: '/' },
    { name: t('membersProfile.title'), route: '/members-profile' },
    { name, route },
  ];
  return {
    '@context': context,
    '@type': 'BreadcrumbList',
    itemListElement: trail.map((step, i) => ({ '@type': 'ListItem', position: i + 1, name: step.name, item: pageURL(lang, step.route) })),
  };
}

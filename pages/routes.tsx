import type { ComponentType } from 'react';
import KeyRound from 'lucide-react/icons/key-round';
import LogIn from 'lucide-react/icons/log-in';
import UserPlus from 'lucide-react/icons/user-plus';
import members from '../data/members.json';
import ForgotPassword from './islands/ForgotPassword';
import Login from './islands/Login';
import Registration from './islands/Registration';
import ResetPassword from './islands/ResetPassword';
import type { Translator } from './lib/i18n';
import { inLanguage, type Lang } from './lib/site';
import { memberBreadcrumbs, organization, type StructuredData } from './lib/structuredData';
import { AboutUs } from './screens/AboutUs';
import { ContactUs } from './screens/ContactUs';
import { Donate } from './screens/Donate';
import { Faq, faqData } from './screens/Faq';
import { FeedbackPage } from './screens/FeedbackPage';
import { formPage } from './screens/FormPage';
import { Home } from './screens/Home';
import { ImportFormat } from './screens/ImportFormat';
import { Intro } from './screens/Intro';
import { MemberDetails } from './screens/MemberDetails';
import { MembersProfile } from './screens/MembersProfile';
import { MobileApp } from './screens/MobileApp';
import type { NewsItem } from './lib/news';
import { NewsDetailPage, NewsFeed, newsFeedMeta, newsItemData, newsItemMeta, type FeedPage } from './screens/NewsFeed';
import { NotFound } from './screens/NotFound';
import { Services } from './screens/Services';
import { Copyright, LegalDisclaimer, PrivacyPolicy, Terms } from './screens/StaticText';
import { Testimonials } from './screens/Testimonials';
import { UnsubscribePage } from './screens/UnsubscribePage';
import { Values } from './screens/Values';

export interface ScreenProps {
  lang: Lang;
  route: string;
  // news are the items a page of the news feed lists, in the page's
  // language, null when the build has none (the feed then loads them in
  // the browser); feed is that page's place in the feed.
  news: NewsItem[] | null;
  feed?: FeedPage;
  // newsItem is the item of a news item's own page; neighbours are the
  // items posted just after (newer) and before (older) it, null at either
  // end of the archive.
  newsItem?: NewsItem;
  neighbours?: Neighbours;
  // posted is the news item's day as its page says it, where a shape of
  // the archive's pages (pages/server.tsx) has a slot for it; otherwise
  // the page computes it.
  posted?: string;
}

export interface Neighbours {
  newer: NewsItem | null;
  older: NewsItem | null;
}

export interface Route {
  // path is the route of SPEC §2; a segment starting with ':' is a
  // parameter, written once as a shell page that an island fills in (and,
  // for the news, once more for each item of the archive: pages/server.tsx).
  path: string;
  // id names the page's texts in locales: `${id}.title`, `${id}.description`.
  id: string;
  screen: ComponentType<ScreenProps>;
  // params fill placeholders in the page's title and description.
  params?: (lang: Lang) => Record<string, string>;
  // canonical is the route search engines should index instead of this one.
  canonical?: string;
  // languageSelector is false only on the news feed (SPEC §1).
  languageSelector?: boolean;
  // meta gives a page of its own title and description in place of the
  // route's texts (a news item's page).
  meta?: (props: ScreenProps, t: Translator['t']) => { title: string; description: string } | undefined;
  // article marks the route whose pages with their own meta are articles
  // (og:type), a news item's.
  article?: boolean;
  // structuredData is the page's schema.org JSON-LD (lib/structuredData).
  structuredData?: (props: ScreenProps, t: Translator['t']) => StructuredData[];
}

const home = ({ lang }: ScreenProps) => [organization(lang)];

const intro = (id: string): ComponentType<ScreenProps> => {
  const screen = () => <Intro id={id} />;
  screen.displayName = `Intro(${id})`;
  return screen;
};

// routes is the route table of SPEC §2 and the single source of the site's
// pages: the generator renders each one in every language, serve and the
// sitemap are derived from it.
export const routes: Route[] = [
  { path: '/', id: 'home', screen: Home, structuredData: home },
  { path: '/home', id: 'home', screen: Home, canonical: '/', structuredData: home },
  { path: '/testimonials', id: 'testimonials', screen: Testimonials },
  { path: '/registration', id: 'registration', screen: formPage('registration', 'Registration', Registration, UserPlus, true) },
  { path: '/contact-us', id: 'contactUs', screen: ContactUs },
  { path: '/about-us', id: 'aboutUs', screen: AboutUs },
  { path: '/login', id: 'login', screen: formPage('login', 'Login', Login, LogIn) },
  { path: '/forget-password', id: 'forgetPassword', screen: formPage('forgetPassword', 'ForgotPassword', ForgotPassword, KeyRound) },
  { path: '/privacy-policy', id: 'privacyPolicy', screen: PrivacyPolicy },
  { path: '/legal', id: 'legal', screen: LegalDisclaimer },
  { path: '/copyright', id: 'copyright', screen: Copyright },
  { path: '/terms-n-conditions', id: 'terms', screen: Terms },
  { path: '/donate', id: 'donate', screen: Donate },
  { path: '/standard-15-day-format', id: 'importFormat', screen: ImportFormat },
  { path: '/reset-password', id: 'resetPassword', screen: formPage('resetPassword', 'ResetPassword', ResetPassword, KeyRound) },
  { path: '/unsubscribe', id: 'unsubscribe', screen: UnsubscribePage },
  { path: '/faq', id: 'faq', screen: Faq, structuredData: faqData },
  { path: '/services', id: 'services', screen: Services },
  { path: '/members-profile', id: 'membersProfile', screen: MembersProfile },
  ...members.map(
    (member): Route => ({
      path: `/member-details-${member.slug}`,
      id: 'memberDetails',
      params: (lang) => ({ name: inLanguage(member, lang).name }),
      structuredData: ({ lang }, t) => [memberBreadcrumbs(lang, `/member-details-${member.slug}`, inLanguage(member, lang).name, t)],
      screen: function Member(props: ScreenProps) {
        return <MemberDetails {...props} member={member} />;
      },
    }),
  ),
  { path: '/values', id: 'values', screen: Values },
  { path: '/mobile-app', id: 'mobileApp', screen: MobileApp },
  { path: '/news-feed', id: 'newsFeed', screen: NewsFeed, languageSelector: false, meta: newsFeedMeta },
  { path: '/news-feed/news/:newsId', id: 'newsDetail', screen: NewsDetailPage, meta: newsItemMeta, article: true, structuredData: newsItemData },
  { path: '/feedback-form', id: 'feedbackForm', screen: FeedbackPage },
];

// notFound is the screen for every other path (SPEC §2), written as each
// language's 404.html.
export const notFound: Route = { path: '/404', id: 'notFound', screen: NotFound };

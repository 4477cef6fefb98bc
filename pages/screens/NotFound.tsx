import MapPinOff from 'lucide-react/icons/map-pin-off';
import NotFoundPage from '../islands/NotFoundPage';
import { Island } from '../lib/island';
import { newsPathPattern } from '../lib/news';

// NotFound is the screen of every unknown path (SPEC §2), served with 404:
// a route that leads nowhere, drawn above the island's words. The island
// hydrates on the visitor's first interaction: until then its Send
// feedback link leads to the feedback page, as without JavaScript. On a
// news item's path (a static host without rewrites) it hydrates at once
// to show the item.
export function NotFound() {
  return (
    <section className="not-found">
      <span className="not-found-mark">
        <MapPinOff className="icon" />
      </span>
      <Island name="NotFoundPage" component={NotFoundPage} props={{}} onInteraction={{ atOnce: newsPathPattern }} />
    </section>
  );
}

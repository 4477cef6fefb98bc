import MapPinOff from 'lucide-react/icons/map-pin-off';
import NotFoundPage from '../islands/NotFoundPage';
import { Island } from '../lib/island';

// NotFound is the screen of every unknown path (SPEC §2), served with 404:
// a route that leads nowhere, drawn above the island's words.
export function NotFound() {
  return (
    <section className="not-found">
      <span className="not-found-mark">
        <MapPinOff className="icon" />
      </span>
      <Island name="NotFoundPage" component={NotFoundPage} props={{}} />
    </section>
  );
}

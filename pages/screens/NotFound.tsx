import NotFoundPage from '../islands/NotFoundPage';
import { Island } from '../lib/island';

// NotFound is the screen of every unknown path (SPEC §2), served with 404.
export function NotFound() {
  return (
    <section className="page not-found">
      <Island name="NotFoundPage" component={NotFoundPage} props={{}} />
    </section>
  );
}

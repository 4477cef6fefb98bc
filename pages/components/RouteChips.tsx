import Route from 'lucide-react/icons/route';
import { useT } from '../lib/i18n';

// RouteChips shows a member's routes (the translated "A – B, C – D" text
// of memberProfiles) as one chip each, listed for assistive technology.
export function RouteChips({ routes }: { routes: string }) {
  const { t } = useT();
  return (
    <ul className="chips" aria-label={t('memberDetails.routes')}>
      {routes.split(/\s*,\s*/).map((r) => (
        <li key={r}>
          <Route className="icon" />
          {r}
        </li>
      ))}
    </ul>
  );
}

import type { ComponentType } from 'react';
import { useT } from '../lib/i18n';
import { LinkedText } from './LinkedText';

export type Icon = ComponentType<{ className?: string }>;

interface Props {
  // items are the cards in order: each one's key under texts and its icon.
  items: ReadonlyArray<readonly [key: string, icon: Icon]>;
  // texts is the locales prefix of the cards: `${texts}.${key}.title` and
  // `${texts}.${key}.text`.
  texts: string;
  heading: 'h2' | 'h3';
  // numbered cards are an ordered list that shows each card's number.
  numbered?: boolean;
  // links are the pages card texts name, by card key: the words marked
  // in the text link there (LinkedText).
  links?: Partial<Record<string, string>>;
}

// IconCards is a grid of cards, each with its lucide icon (rendered at
// build time), a title and a text: the home page's reasons, the services,
// the values.
export function IconCards({ items, texts, heading: Heading, numbered, links }: Props) {
  const { t } = useT();
  const List = numbered ? 'ol' : 'ul';
  return (
    <List className={numbered ? 'cards numbered' : 'cards'}>
      {items.map(([key, Icon]) => (
        <li className="card" key={key}>
          <span className="card-icon">
            <Icon className="icon" />
          </span>
          <Heading>{t(`${texts}.${key}.title`)}</Heading>
          <p>
            <LinkedText text={t(`${texts}.${key}.text`)} href={links?.[key]} />
          </p>
        </li>
      ))}
    </List>
  );
}

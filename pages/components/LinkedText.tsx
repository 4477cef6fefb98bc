// LinkedText renders a translated text in which <link>...</link> marks the
// words that name another page ("Open the <link>Mobile app page</link>"):
// those words become the link to href, wherever the translation puts them.
// A text without the mark, or without an href, is plain text.
export function LinkedText({ text, href }: { text: string; href?: string }) {
  const match = /^(.*)<link>(.*)<\/link>(.*)$/s.exec(text);
  if (!match || !href) return <>{text}</>;
  const [, before, words, after] = match;
  return (
    <>
      {before}
      <a href={href}>{words}</a>
      {after}
    </>
  );
}

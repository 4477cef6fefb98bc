// Prose renders a translated text of several paragraphs: paragraphs are
// separated by a blank line; a paragraph whose lines all start with "- "
// is a bulleted list, one whose lines all start with "1. ", "2. " and so on
// a numbered list. Long texts (legal pages, the about story) keep
// their structure in one translation key per section this way.
export function Prose({ text }: { text: string }) {
  return (
    <>
      {text.split(/\n\s*\n/).map((block, i) => {
        const lines = block.trim().split('\n');
        if (lines.every((line) => line.startsWith('- '))) {
          return (
            <ul key={i}>
              {lines.map((line, j) => (
                <li key={j}>{line.slice(2)}</li>
              ))}
            </ul>
          );
        }
        if (lines.every((line) => /^\d+\. /.test(line))) {
          return (
            <ol key={i}>
              {lines.map((line, j) => (
                <li key={j}>{line.replace(/^\d+\. /, '')}</li>
              ))}
            </ol>
          );
        }
        return <p key={i}>{block.trim()}</p>;
      })}
    </>
  );
}

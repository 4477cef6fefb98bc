import ArrowRight from 'lucide-react/icons/arrow-right';

interface Props {
  id: string;
  title: string;
  text: string;
  link: string;
  href: string;
}

// SignUpPrompt is the band on deep brand that invites a visitor to
// register (home, about us, services).
export function SignUpPrompt({ id, title, text, link, href }: Props) {
  return (
    <section className="signup-prompt" aria-labelledby={id}>
      <div className="signup-inner">
        <div>
          <h2 id={id}>{title}</h2>
          <p>{text}</p>
        </div>
        <a className="button large" href={href}>
          {link}
          <ArrowRight className="icon" />
        </a>
      </div>
    </section>
  );
}

import ReactMarkdown, { type Components } from 'react-markdown';

// Links in course texts leave devplein: a new tab, without access to this window.
const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
};

/**
 * A course text written by a teacher, as Markdown. Raw HTML in the text is not rendered
 * (react-markdown's default: no rehype-raw) and unsafe link protocols are dropped.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown skipHtml components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

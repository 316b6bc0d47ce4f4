import { Link } from 'react-router-dom';
import type { UsefulLink, UsefulLinks } from './useful-links.ts';
import { pathTo } from '../../routePaths.ts';
import '../../styles/levels-and-profile.css';

export function UsefulLinksPageView({ links }: { links: UsefulLinks }) {
  return (
    <div className="page useful-links-page">
      <h1>Handige links</h1>
      <section className="card links-card" aria-labelledby="links-guides-heading">
        <h2 id="links-guides-heading">Uitleg van devplein</h2>
        <ul className="guide-links" data-testid="links-guides">
          <li>
            <Link to={pathTo('gitGuide')}>Je site bijwerken met git</Link>: je repository op je site zetten, bijwerken na een push,
            een privé-repository, terug naar een eerdere versie.
          </li>
        </ul>
      </section>
      <LinkTable title="Van school" caption="Links naar de systemen van school" links={links.internal} testId="links-internal" />
      <LinkTable title="Leren" caption="Uitleg en documentatie" links={links.learning} testId="links-learning" />
    </div>
  );
}

function LinkTable({ title, caption, links, testId }: { title: string; caption: string; links: UsefulLink[]; testId: string }) {
  return (
    <section className="card links-card" aria-labelledby={`${testId}-heading`}>
      <h2 id={`${testId}-heading`}>{title}</h2>
      {links.length === 0 ? (
        <p className="page-message">Er zijn hier nog geen links ingesteld.</p>
      ) : (
        <table className="links-table" data-testid={testId}>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Link</th>
              <th scope="col">Waarvoor</th>
            </tr>
          </thead>
          <tbody>
            {links.map((link) => (
              <tr key={link.key}>
                <td>
                  <a href={link.url} target="_blank" rel="noopener noreferrer">
                    {link.label}
                  </a>
                </td>
                <td>{link.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

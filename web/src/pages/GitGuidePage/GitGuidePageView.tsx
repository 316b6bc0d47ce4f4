import { Link } from 'react-router-dom';
import { DEPLOY_KEY_INSTRUCTION, type DeploySettingsView } from '../../api/queries/deploys.ts';
import { pathTo } from '../../routePaths.ts';
import '../../styles/git-guide.css';

export interface GitGuidePageViewProps {
  /** Undefined while it loads (or when it failed). */
  settings: DeploySettingsView | undefined;
  settingsFailed: boolean;
}

/** Which git servers the school allows, in a sentence or a list. */
function AllowedHosts({ settings, settingsFailed }: GitGuidePageViewProps) {
  if (settingsFailed) return <p className="muted">De lijst met toegestane Git-servers kon niet worden geladen. Herlaad de pagina of vraag je docent.</p>;
  if (settings === undefined) return <p className="muted" role="status">Toegestane Git-servers laden…</p>;
  if (settings.allowedHosts.length === 0) {
    return (
      <p className="guide-warning" data-testid="guide-hosts">
        Git-deploy staat op dit moment uit: er zijn geen Git-servers toegestaan. Vraag je docent ernaar.
      </p>
    );
  }
  return (
    <>
      <p>De school staat repositories toe op deze Git-servers:</p>
      <ul className="guide-hosts" data-testid="guide-hosts">
        {settings.allowedHosts.map((host) => (
          <li key={host}>
            <code>{host}</code>
          </li>
        ))}
      </ul>
      <p>
        Adressen die beginnen met <code>https://</code>, <code>ssh://</code>, <code>git://</code> of <code>git@</code> mogen
        {settings.allowHttp ? <>, en ook <code>http://</code>.</> : <>; <code>http://</code> niet.</>} Een map op een computer
        (<code>file://</code> of <code>/home/…</code>) of een andere server kan niet: het formulier zegt meteen waarom.
      </p>
    </>
  );
}

/**
 * "Je site bijwerken met git": how a student gets a repository onto their site — the request
 * form, Bijwerken, the webhook per git server, the deploy key, what stays, failures, roll back.
 */
export function GitGuidePageView(props: GitGuidePageViewProps) {
  return (
    <article className="page git-guide-page">
      <p className="guide-back">
        <Link to={pathTo('usefulLinks')}>← Handige links</Link>
      </p>
      <h1>Je site bijwerken met git</h1>
      <p className="guide-lead">
        Zet je code in een git-repository en devplein zet hem op je site: als je docker wordt aangemaakt, als je op{' '}
        <strong>Bijwerken</strong> klikt, en als je wilt na elke push. Zo werk je zoals echte developers: committen, pushen, kijken.
      </p>

      <section className="card guide-step" aria-labelledby="guide-repository">
        <h2 id="guide-repository">1. Je repository op het aanvraagformulier</h2>
        <p>
          Vul bij <Link to={pathTo('dockersCreate')}>Docker aanvragen</Link> onder <em>Git-repository</em> het clone-adres in, zoals{' '}
          <code>https://git.school.nl/jij/project.git</code> of <code>git@git.school.nl:jij/project.git</code>. Laat{' '}
          <em>Branch</em> leeg voor de standaardbranch (meestal <code>main</code>).
        </p>
        <AllowedHosts {...props} />
        <p>
          Als je docent je aanvraag heeft goedgekeurd en je op <strong>Aanmaken</strong> klikt, haalt devplein je code op en zet hem in
          de webmap van je image (bijvoorbeeld <code>/www</code> of <code>/var/www/html</code>).
        </p>
      </section>

      <section className="card guide-step" aria-labelledby="guide-button">
        <h2 id="guide-button">2. Bijwerken met één klik</h2>
        <p>
          Op <Link to={pathTo('mydockers')}>Dockers</Link> zie je bij je project welke versie online staat: de commit, wie hem maakte en
          wanneer. Klik op <strong>Bijwerken</strong> om de nieuwste commit van je branch op je site te zetten. Terwijl dat gebeurt zie
          je de log live meelopen.
        </p>
      </section>

      <section className="card guide-step" aria-labelledby="guide-webhook">
        <h2 id="guide-webhook">3. Automatisch na elke push: de webhook</h2>
        <p>
          Klap op je docker <strong>Git-deploy</strong> open. Daar staan een <em>URL</em> en een <em>geheim</em> (klik op Toon). Zet
          die twee bij de webhooks van je repository:
        </p>
        <dl className="guide-hosts-howto">
          <dt>Gitea of Forgejo</dt>
          <dd>
            Instellingen → Webhooks → Webhook toevoegen → Gitea (of Forgejo). Doel-URL: de URL. HTTP-methode: POST. Content type:{' '}
            <code>application/json</code>. Geheim: het geheim. Triggers: <em>Push-events</em>.
          </dd>
          <dt>GitLab</dt>
          <dd>
            De instellingen van je project → Webhooks → nieuwe webhook. URL: de URL. Secret token: het geheim. Trigger:{' '}
            <em>Push events</em>. GitLab stuurt altijd JSON.
          </dd>
          <dt>GitHub</dt>
          <dd>
            De instellingen van je repository → Webhooks → nieuwe webhook. Payload URL: de URL. Content type:{' '}
            <code>application/json</code>. Secret: het geheim. Kies dat alleen het push-event de webhook start.
          </dd>
        </dl>
        <p>
          Devplein controleert het geheim bij elke push en werkt alleen bij voor pushes naar jouw branch. Heb je het geheim per ongeluk
          gedeeld? Klik op <strong>Nieuw geheim</strong> en zet het nieuwe bij je repository. Werkt het niet, kijk dan bij de webhook
          op je Git-server naar de laatste verzendingen: daar staat het antwoord van devplein.
        </p>
      </section>

      <section className="card guide-step" aria-labelledby="guide-private">
        <h2 id="guide-private">4. Een privé-repository</h2>
        <p>
          Gebruik een ssh-adres (<code>git@…</code>). Onder <strong>Git-deploy</strong> maak je met <em>Deploy key maken</em> de deploy key van je
          project: een publieke sleutel die alleen bij dit project hoort. {DEPLOY_KEY_INSTRUCTION}: in je repository bij Instellingen → Deploy keys. Zet
          schrijfrechten <em>niet</em> aan. Kies daarna bij Instellingen de optie <em>Deploy key</em>.
        </p>
        <p>
          Liever https? Maak op de Git-server een token met alleen leesrechten, kies <em>Token</em> en plak het. Devplein bewaart het
          versleuteld en laat het nooit meer zien; je ziet alleen dat er een token is opgeslagen.
        </p>
      </section>

      <section className="card guide-step" aria-labelledby="guide-keep">
        <h2 id="guide-keep">5. Wat blijft er staan?</h2>
        <p>
          Bij bijwerken wordt je code in één keer vervangen door wat in git staat. Een paar dingen blijven staan, zoals geüploade
          bestanden (<code>wp-content/uploads</code>), <code>wp-config.php</code> en <code>.env</code>; je docent stelt per image in
          wat er blijft. Zet je wachtwoorden dus in <code>.env</code> op de server, niet in git. Wat je zelf via SSH in de webmap
          zet en niet in die lijst staat, is na de volgende keer bijwerken weg.
        </p>
      </section>

      <section className="card guide-step" aria-labelledby="guide-fail">
        <h2 id="guide-fail">6. Als bijwerken mislukt</h2>
        <p>
          Lukt het ophalen niet, is je repository te groot, duurt het te lang of faalt de opdracht die na het bijwerken draait? Dan
          blijft je oude site gewoon online. Op je docker staat <em>Mislukt</em> met de log erbij: daarin lees je wat er misging.
          Los het op, push opnieuw of klik op <strong>Bijwerken</strong>.
        </p>
      </section>

      <section className="card guide-step" aria-labelledby="guide-rollback">
        <h2 id="guide-rollback">7. Terug naar een eerdere versie</h2>
        <p>
          Iets kapot gemaakt? Onder <strong>Git-deploy</strong> → Geschiedenis staat bij eerdere versies die online stonden de knop{' '}
          <strong>terug naar deze versie</strong>. Die zet die commit weer op je site. De volgende push of <strong>Bijwerken</strong>{' '}
          brengt weer de nieuwste versie.
        </p>
      </section>
    </article>
  );
}

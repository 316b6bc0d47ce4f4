import { Link } from 'react-router-dom';
import { useCurrentUser, type CurrentUser } from '../../api/queries/user.ts';
import { Icon, type IconName } from '../../components/Icon.tsx';
import { routePaths } from '../../routePaths.ts';

/** Home: a welcome that points to the student websites and to login (spec §2). */
export function HomePage() {
  const { user } = useCurrentUser();
  return (
    <div className="page home-page">
      <section className="card hero">
        <p className="hero-kicker">Software Developer</p>
        <h1>{user === null ? 'Welkom op devplein!' : `Welkom terug, ${firstName(user)}!`}</h1>
        <p className="hero-text">
          Devplein is de ontwikkelomgeving van onze opleiding. Hier zie je de websites die studenten bouwen, en hier
          regel je je eigen projecten, dockers en levels.
        </p>
      </section>
      <div className="action-grid">
        <ActionCard
          to={routePaths.websites}
          icon="globe"
          title="Bekijk de websites"
          text="Ontdek wat studenten van alle klassen gemaakt hebben. Daarvoor hoef je niet in te loggen."
        />
        {user === null ? (
          <ActionCard
            to={routePaths.login}
            icon="login"
            title="Inloggen"
            text="Log in met je schoolaccount voor je eigen dockers, je levels en je profiel."
          />
        ) : (
          <ActionCard
            to={routePaths.mydockers}
            icon="box"
            title="Naar je dockers"
            text="Vraag een nieuw project aan of beheer de dockers die je al hebt."
          />
        )}
      </div>
    </div>
  );
}

function ActionCard({ to, icon, title, text }: { to: string; icon: IconName; title: string; text: string }) {
  return (
    <Link to={to} className="card action-card">
      <span className="action-icon">
        <Icon name={icon} />
      </span>
      <span className="action-body">
        <span className="action-title">{title}</span>
        <span className="action-text">{text}</span>
      </span>
      <Icon name="arrowRight" className="action-arrow" />
    </Link>
  );
}

function firstName(user: CurrentUser): string {
  return user.name.split(' ')[0] ?? user.name;
}

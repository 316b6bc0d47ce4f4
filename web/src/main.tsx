import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { preloadPageAt } from './routes.tsx';
import './styles/app.css';
// The shared rules every page builds on (tables, buttons, form fields, page layout), after app.css and
// before any page's own stylesheet, which a lazy page chunk adds later.
import './styles/base/page.css';
import './styles/base/buttons.css';
import './styles/base/tables.css';
import './styles/base/forms.css';

// The page's code travels alongside the signed-in user's request that the app waits for first.
preloadPageAt(window.location.pathname);

const container = document.getElementById('root');
if (container === null) throw new Error('index.html mist <div id="root">');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

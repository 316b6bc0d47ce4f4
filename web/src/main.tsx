import './zod-config.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './styles/app.css';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html mist <div id="root">');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

import { render } from 'preact';
import { App } from './app';
import { loadApiBase } from './config';
import './styles.css';

void loadApiBase().then((apiBase) => render(<App apiBase={apiBase} />, document.getElementById('app')!));

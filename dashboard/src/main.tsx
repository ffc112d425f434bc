import { render } from 'preact';
import { App } from './app';
import { loadEndpoints } from './config';
import './styles.css';

void loadEndpoints().then((endpoints) => render(<App {...endpoints} />, document.getElementById('app')!));

import { render } from 'preact';
import { App } from './App';
import { boot } from './session';
import './styles.css';

void boot();
const root = document.getElementById('app');
if (root) render(<App />, root);

import { search } from './search.js';
window.api.open().then(t => localStorage.setItem('settings', t));
const w = new Worker(new URL('./worker.js', import.meta.url));
fetch('https://api.example.com/v1/search?q=' + search('x'));

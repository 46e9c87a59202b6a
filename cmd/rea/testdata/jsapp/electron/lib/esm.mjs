export * from './reexport.mjs';
export * as ns from './reexport.mjs';
export { value as renamed } from './reexport.mjs';
export const local = 1;
const later = await import('./reexport.mjs');
const dyn = await import(`./locale-${navigator.language}.mjs`);

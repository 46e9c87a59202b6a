export const value = 'lazy';

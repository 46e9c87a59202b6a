export const value = 42;
export default function () { return value; }

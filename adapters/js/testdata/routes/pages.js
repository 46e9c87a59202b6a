export function Home() { return "home"; }
export function Items(q) { return "items " + JSON.stringify(q); }
export function Item(q) { return "item " + JSON.stringify(q); }
export function Edit() { return "edit"; }

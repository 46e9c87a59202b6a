export function search(q) { return q.trim(); }
export default search;

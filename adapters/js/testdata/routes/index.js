import { createBrowserRouter, createRouter } from './router.js';
import { Home, Items, Item, Edit } from './pages.js';
import { readAll } from './files.js';

export const routes = [
  { path: "/", component: Home },
  { path: "/items", component: Items, children: [
    { path: ":id", component: Item, children: [{ path: "edit", component: Edit }] },
  ] },
];
export const router = createRouter({ history: "hash", routes });
createBrowserRouter([{ path: "/about", component: Home }]);

// File-system data, not routes.
readAll([{ path: "/etc/hosts" }, { path: "/etc/passwd" }]);

const mc = navigator.modelContext;
mc.registerTool({ name: "search_items", description: "Search the items", inputSchema: { type: "object", properties: { q: { type: "string" } } }, execute: async (a) => Items(a) });
const { registerTool } = navigator.modelContext;
registerTool({ name: "open_item", execute: async (a) => Item(a) });
navigator.modelContext.provideContext({ tools: [{ name: "list_items", description: "List the items", execute: async () => Items({}) }] });

// A registerTool method of the page's own: not WebMCP.
const store = { tools: [], registerTool(t) { this.tools.push(t); return t; } };
store.registerTool({ name: "not_webmcp" });
window.__store = store;

import('./lazy.js').then((m) => m.run());

export function createRouter(options) { window.__router = options; return options; }
export function createBrowserRouter(routes) { window.__browserRouter = routes; return routes; }

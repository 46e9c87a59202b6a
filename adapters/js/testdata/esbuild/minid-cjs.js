var d = Object.create;
var u = Object.defineProperty;
var h = Object.getOwnPropertyDescriptor;
var j = Object.getOwnPropertyNames;
var k = Object.getPrototypeOf;
var v = Object.prototype.hasOwnProperty;
var w = (r, o, t) => () => {
  if (t) throw t[0];
  try {
    return r && (o = r(r = 0)), o;
  } catch (e) {
    throw t = [e], e;
  }
};
var f = (r, o) => () => {
  try {
    return o || r((o = { exports: {} }).exports, o), o.exports;
  } catch (t) {
    throw o = 0, t;
  }
};
var z = (r, o) => {
  for (var t in o)
    u(r, t, { get: o[t], enumerable: true });
};
var i = (r, o, t, e) => {
  if (o && typeof o === "object" || typeof o === "function") {
    for (let n of j(o))
      if (!v.call(r, n) && n !== t)
        u(r, n, { get: () => o[n], enumerable: !(e = h(o, n)) || e.enumerable });
  }
  return r;
};
var p = (r, o, t) => (t = r != null ? d(k(r)) : {}, i(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  o || !r || !r.__esModule ? u(t, "default", { value: r, enumerable: true }) : t,
  r
));
var A = (r) => i(u({}, "__esModule", { value: true }), r);

// src/a.js
var c = f((x, s) => {
  x.x = 1;
  s.exports.y = function(r, o) {
    return r + o;
  };
});

// src/b.js
var m = {};
z(m, {
  b: () => a,
  f: () => B
});
function B(r) {
  return r;
}
var a;
var l = w(() => {
  a = 2;
});

// src/c.js
var y = f((E, q) => {
  var C = c();
  q.exports = function r() {
    return C.y(1, 2) + (l(), A(m)).f(3);
  };
});

// src/entry.js
var b = p(y());
var g = p(c());
console.log((0, b.default)(), g.x);

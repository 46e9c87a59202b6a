"use strict";
(self["webpackChunkrsp"] = self["webpackChunkrsp"] || []).push([["src_lazy_js"], {
"./src/lazy.js": 
/*!*********************!*\
  !*** ./src/lazy.js ***!
  \*********************/
(function (__unused_webpack_module, __webpack_exports__, __webpack_require__) {
eval("{__webpack_require__.r(__webpack_exports__);\n__webpack_require__.d(__webpack_exports__, {\n  run: () => (run)\n});\nfunction run() { return fetch(\"https://api.example.com/items\"); }\n\n\n//# sourceURL=webpack://rsp/./src/lazy.js?19c4\n}");

}),

}]);
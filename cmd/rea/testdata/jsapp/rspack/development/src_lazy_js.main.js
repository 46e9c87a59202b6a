"use strict";
(self["webpackChunkrsp"] = self["webpackChunkrsp"] || []).push([["src_lazy_js"], {
"./src/lazy.js": 
/*!*********************!*\
  !*** ./src/lazy.js ***!
  \*********************/
(function (__unused_webpack_module, __webpack_exports__, __webpack_require__) {
__webpack_require__.r(__webpack_exports__);
__webpack_require__.d(__webpack_exports__, {
  run: () => (run)
});
function run() { return fetch("https://api.example.com/items"); }


}),

}]);
//# sourceMappingURL=src_lazy_js.main.js.map
/******/ (() => { // webpackBootstrap
/******/ 	var __webpack_modules__ = ({
"./src/index.js":
((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {
__webpack_require__.r(__webpack_exports__);
var _math_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__("./src/math.js");
console.log((0,_math_js__WEBPACK_IMPORTED_MODULE_0__.add)(1, 2));
fetch("https://telemetry.example.com/ping");
}),
"./src/math.js":
((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {
__webpack_require__.r(__webpack_exports__);
__webpack_require__.d(__webpack_exports__, { add: () => (add), mul: () => (mul) });
function add(a, b) { return a + b; }
function mul(a, b) { return a * b; }
})
/******/ 	});
/******/ 	var __webpack_module_cache__ = {};
/******/ 	function __webpack_require__(moduleId) {
/******/ 		var cachedModule = __webpack_module_cache__[moduleId];
/******/ 		if (cachedModule !== undefined) { return cachedModule.exports; }
/******/ 		var module = __webpack_module_cache__[moduleId] = { exports: {} };
/******/ 		__webpack_modules__[moduleId](module, module.exports, __webpack_require__);
/******/ 		return module.exports;
/******/ 	}
/******/ 	__webpack_require__.d = (exports, definition) => { for (var key in definition) { Object.defineProperty(exports, key, { enumerable: true, get: definition[key] }); } };
/******/ 	__webpack_require__.r = (exports) => { Object.defineProperty(exports, "__esModule", { value: true }); };
/******/ 	var __webpack_exports__ = __webpack_require__("./src/index.js");
/******/ })()
;
//# sourceMappingURL=bundle.js.map

var m = 1;
//# sourceMappingURL=nowhere.js.map

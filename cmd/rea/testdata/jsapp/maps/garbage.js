var g = 1;
//# sourceMappingURL=garbage.js.map

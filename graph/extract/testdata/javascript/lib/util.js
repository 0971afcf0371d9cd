// Exercises: module.exports = function (a CommonJS module's default
// export, key "lib/util.default").
module.exports = function clean(s) {
  return String(s).trim();
};

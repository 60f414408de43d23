module.exports = { output: "export", trailingSlash: false };

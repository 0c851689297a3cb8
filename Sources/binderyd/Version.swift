/// The daemon's version, reported by `--version` and `initialize`.
let binderyVersion = "0.1.0"

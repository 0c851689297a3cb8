/// The version of the Bindery project: one number for every program it ships (`binderyd
/// --version` and its `initialize`, `bindery-dev --version`), kept here, where all of them can
/// read it (every program links JSONRPC).
public enum BinderyVersion {
    public static let current = "0.1.0"
}

import BinderyServer

// A daemon of the user's own view models, built by `swift build` in a package that depends on
// Bindery by version.
BinderyDaemon.main(name: "appdaemon", version: "1.0.0") { registry in
    registry.register("signUp") { _ in SignUpViewModel() }
    registry.register("feed") { _ in FeedViewModel() }
    registry.register("email") { _ in EmailViewModel() }
}

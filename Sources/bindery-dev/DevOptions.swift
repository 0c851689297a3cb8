import Glibc
import JSONRPC

/// bindery-dev's command line.
///
/// ```
/// bindery-dev [--package-path DIR] [--product NAME] [--record FILE] [-- DAEMON ARGUMENTS]
/// bindery-dev --init [DIR]
/// ```
struct DevOptions {
    var packagePath = "."
    var product = ""
    var daemonArguments: [String] = []
    /// `--init [DIR]`: write a new package there instead of running one.
    var initPath: String?
    /// `--bindery PATH|URL`: where the new package finds Bindery (default: this checkout).
    var bindery: String?
    /// `--record FILE`: the session as the client sees it, written there as a transcript (Recorder).
    var recordPath: String?

    static let usage = """
        usage: bindery-dev [--package-path DIR] [--product NAME] [--record FILE] [-- DAEMON ARGUMENTS]
               bindery-dev --init [DIR] [--bindery PATH|URL]

        Builds the product NAME of the Swift package in DIR (default: the current folder; NAME may
        be left out when the package has one executable product) with `swift build`, runs it, and speaks its protocol on stdin and stdout, so that a client or an
        editor uses bindery-dev as its daemon. Each time a source of the package is saved it builds
        again and, if the build succeeds, moves every open session into the new daemon: session ids,
        keys and writable fields are kept, revisions go on, and the client is told what differs
        (didChange), then daemon/reloaded. A build that fails is reported as daemon/buildFailed and
        the old daemon goes on serving. Arguments after `--` go to the daemon. It is meant as an
        editor's (or a client's) daemon command: Neovim `let g:bindery_cmd = ['bindery-dev']`,
        Emacs `bindery-command`; typed in a terminal, it says so.

        --init [DIR]   writes a new package in DIR (default: the current folder, which must hold no
                       Package.swift): a view model and its daemon, depending on Bindery, ready for
                       `bindery-dev --product NAME`. Bindery is taken from the checkout this
                       bindery-dev was built from, or from --bindery.
        --record FILE  writes the session as the client sees it, across reloads, to FILE as a
                       transcript (bindery-replay, or BinderyTesting's Transcript.replay, replays
                       it); the daemon then runs with --deterministic --seed 1 unless its
                       arguments say --deterministic already.
        --help, --version
        """

    enum Parsed {
        case run(DevOptions)
        case exit(String, Int32)
    }

    static func parse(_ arguments: [String]) -> Parsed {
        var options = DevOptions()
        var index = 0
        func value(_ flag: String) -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--":
                options.daemonArguments = Array(arguments[(index + 1)...])
                index = arguments.count
                continue
            case "--package-path":
                guard let path = value(argument) else { return .exit("bindery-dev: --package-path needs a folder", 2) }
                options.packagePath = path
            case "--product":
                guard let name = value(argument) else { return .exit("bindery-dev: --product needs a name", 2) }
                options.product = name
            case "--init":
                if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
                    index += 1
                    options.initPath = arguments[index]
                } else {
                    options.initPath = "."
                }
            case "--record":
                guard let path = value(argument) else { return .exit("bindery-dev: --record needs a file", 2) }
                options.recordPath = path
            case "--bindery":
                guard let source = value(argument) else { return .exit("bindery-dev: --bindery needs a path or a URL", 2) }
                options.bindery = source
            case "--help", "-h":
                return .exit(usage, 0)
            case "--version":
                return .exit("bindery-dev \(BinderyVersion.current)", 0)
            default:
                return .exit("bindery-dev: unknown argument \(argument)\n\n\(usage)", 2)
            }
            index += 1
        }
        // A recording runs on the virtual clock with seeded ids, so that it replays exactly.
        if options.recordPath != nil, !options.daemonArguments.contains("--deterministic") {
            options.daemonArguments = ["--deterministic", "--seed", "1"] + options.daemonArguments
        }
        // An absolute path, so that what runs in other folders (swift build) finds the same package.
        // A leading ~ is the home folder: editors pass the command on without a shell.
        if options.packagePath == "~" || options.packagePath.hasPrefix("~/"), let home = getenv("HOME") {
            options.packagePath = String(cString: home) + options.packagePath.dropFirst()
        }
        if !options.packagePath.hasPrefix("/"), let cwd = getcwd(nil, 0) {
            let base = String(cString: cwd)
            free(cwd)
            options.packagePath = options.packagePath == "." ? base : base + "/" + options.packagePath
        }
        guard options.initPath == nil else { return .run(options) }
        if let refusal = refusal(ofPackage: options.packagePath) { return .exit(refusal, 2) }
        if options.product.isEmpty {
            switch PackageProducts.executables(in: options.packagePath) {
            case .failure(let failure):
                return .exit("bindery-dev: cannot read the products of \(options.packagePath): \(failure.message)", 2)
            case .success(let names) where names.count == 1:
                options.product = names[0]
            case .success(let names):
                let listed = names.isEmpty ? "it has none" : "it has " + names.joined(separator: ", ")
                return .exit("bindery-dev: which product? --product NAME names one of the package's executable products "
                    + "(\(listed))", 2)
            }
        }
        return .run(options)
    }

    /// Why `path` is not a package bindery-dev can run, or nil when it is one.
    private static func refusal(ofPackage path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return "bindery-dev: --package-path \(path): no such folder"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "bindery-dev: --package-path \(path) is not a folder" }
        guard access(path + "/Package.swift", F_OK) == 0 else {
            return "bindery-dev: \(path) holds no Package.swift: --package-path names a Swift package's folder "
                + "(bindery-dev --init writes a new one)"
        }
        return nil
    }
}

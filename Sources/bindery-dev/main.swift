// bindery-dev: the developer loop. Builds a package's daemon, runs it, and reloads it on save,
// moving every session across; it speaks the daemon's own protocol on stdin and stdout.
import Dispatch
import Glibc
import JSONRPC

signal(SIGPIPE, SIG_IGN)

let options: DevOptions
switch DevOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case .run(let parsed):
    options = parsed
case .exit(let message, let code):
    let line = Array((message + "\n").utf8)
    line.withUnsafeBytes { _ = write(code == 0 ? 1 : 2, $0.baseAddress, $0.count) }
    exit(code)
}

if let directory = options.initPath {
    exit(Scaffold.write(into: directory, bindery: options.bindery))
}

// Typed in a terminal, it would sit and answer what is typed with parse errors: say what it is for.
if isatty(0) != 0 {
    log("speaks JSON-RPC on stdin and stdout for an editor or a client, not for typing: make it your editor's "
        + "daemon command (Neovim: let g:bindery_cmd = ['bindery-dev', '--package-path', '\(options.packagePath)', '--product', "
        + "'\(options.product)']; Emacs: bindery-command), or run a client with it (bindery-dev --help says more)")
}

MainActor.assumeIsolated {
    let client = ClientIO()
    if let path = options.recordPath {
        guard let recorder = Recorder(path: path, product: options.product, daemonArguments: options.daemonArguments) else { exit(2) }
        client.recorder = recorder
    }
    let proxy = Proxy(client: client)
    let reloader = Reloader(options: options, proxy: proxy)
    proxy.beforeExit = { reloader.builder.cancel() }
    client.start(onFrames: { proxy.clientSent($0) }, onEnd: { proxy.clientEndedInput() })
    if let watcher = SourceWatcher(root: options.packagePath) {
        watcher.start { path in
            DispatchQueue.main.async { MainActor.assumeIsolated { reloader.sourcesChanged(path) } }
        }
    } else {
        log("cannot watch \(options.packagePath) (inotify): saves will not reload")
    }
    reloader.start()
    // Kept for the life of the process.
    Globals.keep = (proxy, reloader)
}
dispatchMain()

/// The objects that live as long as the process.
@MainActor enum Globals {
    static var keep: (Proxy, Reloader)?
}

/// The set-up of the splices scenario, on a daemon started with `--deterministic` (movie ids "1",
/// "2", ... so that sizes repeat run after run): `initialize` (with or without the `splices`
/// capability), one `addMovie` session with a title, `movies` saves to fill the store, and only then
/// `lists` movieList sessions observing `movies`. Filling first means no save fans out while the
/// store grows: the set-up costs O(N), not O(N × lists).
struct MovieLists {
    let client: Client
    let splices: Bool
    /// The addMovie session whose `save` adds a movie.
    let editor: Int
    /// The movieList sessions are `firstList ..< firstList + lists`.
    let firstList: Int
    let lists: Int
    /// Movies in the store, and the id of the next request.
    var movies: Int
    var nextID: Int
    /// Saves since the lists were opened: the lists' revision.
    var savesSinceOpen = 0
    /// What a save adds: every movie has this title.
    static let title = "Alien"
}

/// A movie as the daemon writes it, with the same title as every other one.
func movieJSON(id: Int) -> String {
    #"{"id":"\#(id)","fullTitle":"\#(MovieLists.title)","givenRating":"notSeen"}"#
}

/// `save`s of the editor, pipelined, while no list is open: each must be answered with the movie it
/// added (ids consecutive), and nothing else may come back.
private struct FillStoreWork: PipelineWork {
    let editor: Int
    let firstID: Int
    /// The id of the first movie these saves add.
    let firstMovie: Int
    var nextAnswer = 0

    mutating func appendRequest(_ index: Int, to out: ByteBuffer) {
        Requests.append(id: firstID + index, method: "invoke", params: #"{"session":\#(editor),"command":"save"}"#, to: out)
    }

    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool {
        let movie = Array(#","result":{"result":\#(movieJSON(id: firstMovie + nextAnswer))}}"#.utf8)
        guard case .response(firstID + nextAnswer, false, _) = message, frame.hasSuffix(movie) else {
            throw BenchError("filling the store: expected save \(firstID + nextAnswer) to return movie \(firstMovie + nextAnswer): \(frame.text.prefix(300))")
        }
        nextAnswer += 1
        return true
    }
}

/// `session/open` of movieLists observing `movies`, pipelined: each answer is the next session id
/// with the whole list (read, checked by its last movie, and dropped).
private struct OpenListsWork: PipelineWork {
    let firstID: Int
    let firstSession: Int
    let tail: [UInt8]
    var nextAnswer = 0

    init(firstID: Int, firstSession: Int, movies: Int) {
        self.firstID = firstID
        self.firstSession = firstSession
        tail = Array((movies == 0 ? #""movies":[]}}}"# : movieJSON(id: movies) + "]}}}").utf8)
    }

    mutating func appendRequest(_ index: Int, to out: ByteBuffer) {
        Requests.append(id: firstID + index, method: "session/open", params: #"{"type":"movieList","observe":["movies"]}"#, to: out)
    }

    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool {
        guard case .response(firstID + nextAnswer, false, _) = message,
              MessageScanner.integer(after: "session", in: frame) == firstSession + nextAnswer,
              frame.hasSuffix(tail) else {
            throw BenchError("expected the open of movieList \(firstSession + nextAnswer) with the whole list: \(frame.text.prefix(300))")
        }
        nextAnswer += 1
        return true
    }
}

/// Spawns the daemon and sets it up as above.
func openMovieLists(path: String, movies: Int, lists: Int, splices: Bool, window: Int,
                    pinning: Pinning) throws(BenchError) -> MovieLists {
    let client = try Client(path: path, arguments: ["--deterministic"], pinning: pinning)
    // Without the capability the client sends none, as every client did before splices.
    let (initialized, _) = try client.call(id: 1, method: "initialize",
                                           params: splices ? #"{"capabilities":{"splices":true}}"# : "{}")
    let agreed = initialized.contains(Array(#""capabilities":{"splices":true}"#.utf8))
    guard agreed == splices else {
        throw BenchError("initialize \(splices ? "did not agree to" : "offered") splices: \(String(decoding: initialized.suffix(200), as: UTF8.self))")
    }
    let (opened, _) = try client.call(id: 2, method: "session/open", params: #"{"type":"addMovie","observe":["canSave"]}"#)
    guard let editor = integer(after: "session", in: opened) else { throw BenchError("no session in the addMovie open") }
    try client.call(id: 3, method: "setField", params: #"{"session":\#(editor),"field":"title","value":"\#(MovieLists.title)"}"#)

    var fill = FillStoreWork(editor: editor, firstID: 4, firstMovie: 1)
    _ = try runPipeline(client, count: movies, window: window, work: &fill)

    let firstList = editor + 1
    var open = OpenListsWork(firstID: 4 + movies, firstSession: firstList, movies: movies)
    _ = try runPipeline(client, count: lists, window: window, work: &open)
    return MovieLists(client: client, splices: splices, editor: editor, firstList: firstList, lists: lists,
                      movies: movies, nextID: 4 + movies + lists)
}

extension MovieLists {
    /// A cheap request and its answer: the daemon has finished all it did for the requests before
    /// (they are handled one at a time, in order), so a CPU reading now charges none of it to
    /// whatever comes next.
    mutating func settle() throws(BenchError) {
        let (_, before) = try client.call(id: nextID, method: "session/state", params: #"{"session":\#(editor)}"#)
        guard before.isEmpty else { throw BenchError("\(before.count) didChange(s) before the answer to session/state \(nextID)") }
        nextID += 1
    }
}

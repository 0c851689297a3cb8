extension MovieLists {
    /// Sends one `save` and reads all it causes: a `didChange` of every list, in session order, then
    /// the save's response. Returns the bytes the daemon wrote for it, headers included.
    ///
    /// Each `didChange` is at the lists' next revision, caused by the save, and carries the new movie:
    /// with splices, exactly `"changes":{},"splices":{"movies":{"ops":[one append],"length":L}}`
    /// (compared byte for byte: it is small); without, `"changes":{"movies":[...]}` with L elements,
    /// checked by its head, its last movie and its count of `{"id":"`, not byte for byte (it is
    /// up to 6 MB, a hundred times over).
    mutating func save() throws(BenchError) -> Int {
        let saveID = nextID
        let length = movies + 1
        let revision = savesSinceOpen + 1
        let movie = movieJSON(id: length)
        let reader = client.reader
        guard !reader.hasPartialData else { throw BenchError("bytes left over before save \(saveID)") }
        let before = reader.bytesRead

        try client.send(Requests.encode(id: saveID, method: "invoke", params: #"{"session":\#(editor),"command":"save"}"#))
        let splicedTail = Array(#","changes":{},"splices":{"movies":{"ops":[{"at":\#(length - 1),"delete":0,"insert":[\#(movie)]}],"length":\#(length)}},"cause":\#(saveID)}}"#.utf8)
        let wholeTail = Array(#"\#(movie)]},"cause":\#(saveID)}}"#.utf8)
        let movieHead = Array(#"{"id":""#.utf8)
        var changed = 0
        while true {
            let frame = try reader.nextFrame()
            let message = try client.classify(frame)
            let session = firstList + changed
            switch message {
            case .didChange(session, revision, saveID) where changed < lists:
                let head = Array(#"{"jsonrpc":"2.0","method":"didChange","params":{"session":\#(session),"revision":\#(revision)"#.utf8)
                if splices {
                    guard frame.count == head.count + splicedTail.count, frame.hasPrefix(head), frame.hasSuffix(splicedTail) else {
                        throw BenchError("save \(saveID): expected list \(session) to get one splice appending movie \(length): \(frame.text.prefix(400))")
                    }
                } else {
                    let changes = head + Array(#","changes":{"movies":[{"id":"1","#.utf8)
                    guard frame.hasPrefix(changes), frame.hasSuffix(wholeTail) else {
                        throw BenchError("save \(saveID): expected list \(session) to get the whole list up to movie \(length): \(frame.text.prefix(300)) ... \(frame.text.suffix(200))")
                    }
                    let count = frame.occurrences(of: movieHead)
                    guard count == length else {
                        throw BenchError("save \(saveID): list \(session) was sent \(count) movies, expected \(length)")
                    }
                }
                changed += 1
            case .response(saveID, false, _) where changed == lists:
                guard frame.hasSuffix(Array(#","result":{"result":\#(movie)}}"#.utf8)) else {
                    throw BenchError("save \(saveID) did not return movie \(length): \(frame.text.prefix(300))")
                }
                guard !reader.hasPartialData else { throw BenchError("bytes after the response to save \(saveID)") }
                movies = length
                nextID += 1
                savesSinceOpen += 1
                return reader.bytesRead - before
            default:
                throw BenchError("save \(saveID): expected the didChange of list \(session) (revision \(revision)) or, after \(lists) of them, the response; got \(message): \(frame.text.prefix(300))")
            }
        }
    }
}

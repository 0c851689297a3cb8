import Bindery

/// Which client is attached to which session, on a shared hub (`--listen`). A session observes the
/// union of what its clients observe; each client is told, and answered, only its own members.
extension SessionHub {
    /// Attaches `client` to `session` with the members it observes (nil: all), and returns the
    /// state it starts from. A client already attached keeps what it observes (`session/open`
    /// again with the same key ignores `observe`, as it always has).
    func attach(_ client: Server, to session: Session, observing names: [String]?) -> JSONObject {
        var list = attachments[session.id] ?? []
        if let attached = list.first(where: { $0.client === client }) {
            return Self.filter(session.state(), to: attached.observed)
        }
        let isNew = list.isEmpty
        let observed = names.map(Set.init)
        list.append(Attachment(client: client, observed: observed))
        attachments[session.id] = list
        client.attached.insert(session.id)
        // A new session already observes what its first client asked for.
        if !isNew { observeUnion(of: session) }
        return Self.filter(session.state(), to: observed)
    }

    /// Detaches `client` from the session `id`; true when no client is left (the caller closes it).
    /// Attaches `client` to a child view model's session, under a session it is attached to.
    func attachChild(_ client: Server, to id: Int) {
        var list = attachments[id] ?? []
        guard !list.contains(where: { $0.client === client }) else { return }
        list.append(Attachment(client: client, observed: nil))
        attachments[id] = list
        client.attached.insert(id)
    }

    func detach(_ client: Server, from id: Int) -> Bool {
        client.attached.remove(id)
        guard var list = attachments[id] else { return true }
        list.removeAll { $0.client === client }
        writesToTell[id] = nil
        if list.isEmpty {
            attachments[id] = nil
            return true
        }
        attachments[id] = list
        if let session = table.session(id) { observeUnion(of: session) }
        return false
    }

    /// `session/observe` of one client: what it observes from now on; returns its state.
    func observe(_ client: Server, _ session: Session, _ names: [String]) -> JSONObject {
        guard var list = attachments[session.id], let index = list.firstIndex(where: { $0.client === client }) else {
            return session.observe(names)
        }
        list[index].observed = Set(names)
        attachments[session.id] = list
        if list.count == 1 { return session.observe(names) }
        observeUnion(of: session)
        return Self.filter(session.state(), to: list[index].observed)
    }

    /// The members `client` observes of session `id` (nil: all).
    func observed(by client: Server, in id: Int) -> Set<String>? {
        attachments[id]?.first(where: { $0.client === client })?.observed
    }

    /// Makes the session observe what its clients observe together, if that changed. (Called at a
    /// request's turn, when every change before it has been sent: re-reading loses nothing.)
    private func observeUnion(of session: Session) {
        guard let list = attachments[session.id] else { return }
        let wanted: [String]
        if list.contains(where: { $0.observed == nil }) {
            wanted = session.type.memberNames
        } else {
            let union = list.reduce(into: Set<String>()) { $0.formUnion($1.observed ?? []) }
            wanted = session.type.memberNames.filter(union.contains)
        }
        if session.state().keys != wanted { _ = session.observe(wanted) }
    }

    static func filter(_ state: JSONObject, to observed: Set<String>?) -> JSONObject {
        guard let observed else { return state }
        return JSONObject(state.members.filter { observed.contains($0.key) })
    }
}

/// A session's undo and redo: what its client wrote, in steps.
///
/// Only a client's own `setField`s are recorded (and commands declared undoable), never what another
/// session, a timer or a command changed. Consecutive writes to one field within
/// ``mergeWindow`` make one step, the way a text editor undoes a typing burst at once. Invoking a
/// command ends the step being built; a command that is not undoable also clears what could be
/// redone. A new write clears it too. At most ``limit`` steps are kept.
struct SessionHistory {
    /// One field's value before and after a step.
    struct Write {
        let property: Int
        var before: JSONValue
        var after: JSONValue
    }

    struct Step {
        var writes: [Write]
        /// The field and the time of the last write merged into this step.
        var lastProperty: Int?
        var lastTime: Duration
    }

    static let mergeWindow = Duration.milliseconds(500)
    static let limit = 100

    private(set) var undoable: [Step] = []
    private(set) var redoable: [Step] = []
    /// Whether the next write may merge into the last step.
    private var isGroupOpen = false

    var canUndo: Bool { !undoable.isEmpty }
    var canRedo: Bool { !redoable.isEmpty }

    /// Records a client's write of `property`, at `time` on the session's clock.
    mutating func recordWrite(property: Int, before: JSONValue, after: JSONValue, at time: Duration) {
        redoable.removeAll()
        // In place, never through a copy of the step: that would copy its writes on every
        // keystroke of a burst.
        if isGroupOpen, let last = undoable.indices.last, undoable[last].lastProperty == property,
           time - undoable[last].lastTime <= Self.mergeWindow,
           let index = undoable[last].writes.lastIndex(where: { $0.property == property }) {
            undoable[last].writes[index].after = after
            undoable[last].lastTime = time
            // A burst that came back to where it started ("a" typed, then deleted) is no step.
            if undoable[last].writes.allSatisfy({ $0.after.isSameValue(as: $0.before) }) {
                undoable.removeLast()
                isGroupOpen = false
            }
        } else {
            push(Step(writes: [Write(property: property, before: before, after: after)], lastProperty: property, lastTime: time))
        }
        isGroupOpen = true
    }

    /// Records an undoable command's effect on the fields, as a step of its own.
    mutating func recordCommand(_ writes: [Write], at time: Duration) {
        isGroupOpen = false
        guard !writes.isEmpty else { return }
        redoable.removeAll()
        push(Step(writes: writes, lastProperty: nil, lastTime: time))
    }

    /// A command that cannot be undone: the step being built ends, and nothing can be redone.
    mutating func commandInvoked() {
        isGroupOpen = false
        redoable.removeAll()
    }

    /// The step to undo (its `before` values are to be written back), moved to the redo side.
    mutating func undo() -> Step? {
        isGroupOpen = false
        guard let step = undoable.popLast() else { return nil }
        redoable.append(step)
        return step
    }

    /// The step to redo (its `after` values are to be written again), moved back to the undo side.
    mutating func redo() -> Step? {
        isGroupOpen = false
        guard let step = redoable.popLast() else { return nil }
        undoable.append(step)
        return step
    }

    private mutating func push(_ step: Step) {
        undoable.append(step)
        if undoable.count > Self.limit { undoable.removeFirst(undoable.count - Self.limit) }
    }
}
